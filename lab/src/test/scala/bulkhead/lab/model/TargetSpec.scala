package bulkhead.lab.model

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.io.File
import java.net.URLClassLoader
import java.nio.file.{Files, Path}
import scala.util.Using

class TargetSpec extends AnyFlatSpec with Matchers:

  "A JVM peer" should "take the seeds' flags with their values, and skip bulkhead's own with or without a value" in {
    Target.AkkaHttp.flagsOf(Seq("--allow-default-dispatcher-work", "--blocking-pool-size", "200", "--routees", "1",
      "--max-connections", "1024")) shouldBe Seq("--blocking-pool-size", "200", "--max-connections", "1024")
  }

  "Jetty and Tomcat" should "take only the flags that size their one pool" in {
    val flags = Seq("--blocking-pool-size", "200", "--max-threads", "12", "--allow-default-dispatcher-work",
      "--min-threads", "4")
    Seq(Target.Jetty, Target.Tomcat).foreach(_.flagsOf(flags) shouldBe Seq("--max-threads", "12", "--min-threads", "4"))
  }

  "The Vert.x pipeline" should "take where the stub and Redis are, and none of bulkhead's pool flags" in {
    Target.Vertx.flagsOf(Seq("--soap-mode", "non-blocking", "--redis-uri", "redis://127.0.0.1:6390",
      "--soap-endpoint", "http://127.0.0.1:8089/soap", "--max-connections", "1024")) shouldBe
      Seq("--redis-uri", "redis://127.0.0.1:6390", "--soap-endpoint", "http://127.0.0.1:8089/soap")
    Target.All.filter(_.enrichment) shouldBe Seq(Target.Bulkhead, Target.Vertx)
  }

  "Bulkhead and nginx" should "take every flag, and none" in {
    val flags = Seq("--allow-default-dispatcher-work", "--routees", "1")
    Target.Bulkhead.flagsOf(flags) shouldBe flags
    Target.Nginx.flagsOf(flags) shouldBe empty
  }

  "Target.parse" should "read every target's own name back, and refuse another naming it and the valid ones" in {
    Target.All.foreach(t => Target.parse(t.name) shouldBe Right(t))
    val refused = Target.parse("undertow").left.toOption.get
    refused should include("'undertow'")
    Target.All.foreach(t => refused should include(t.name))
  }

  "Every JVM target" should "name a module of this repository that holds its main class" in {
    (Target.Bulkhead +: Target.JvmPeers).foreach { t =>
      val source = t.mainClass.replace('.', '/')
      withClue(s"$t: ") {
        Seq("scala", "java").map(lang => Path.of("..", t.module, "src/main", lang, s"$source.$lang"))
          .exists(Files.exists(_)) shouldBe true
      }
    }
  }

  "Target.All" should "hold every server whichever of them a program touches first" in {
    val classpath = System.getProperty("java.class.path").split(File.pathSeparator).map(Path.of(_).toUri.toURL)
    Target.All.map(_.getClass.getName).foreach { first =>
      // A class loader of its own, so that `first` is the first of them its JVM initialises.
      Using.resource(URLClassLoader(classpath, ClassLoader.getPlatformClassLoader)) { fresh =>
        fresh.loadClass(first).getField("MODULE$").get(null)
        val companion = fresh.loadClass(classOf[Target].getName + "$")
        val all = companion.getMethod("All").invoke(companion.getField("MODULE$").get(null))
        withClue(s"$first first: ")(all.toString shouldBe Target.All.mkString("List(", ", ", ")"))
      }
    }
  }
