package bulkhead.lab

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}

/**
 * lab/Containerfile runs what the build makes: the image is not built here, so its recipe is held to the jar (which
 * LabJarIT runs as a user would): the file `package` writes, run with `java -jar` on a JDK the lab supports.
 */
class ContainerfileSpec extends AnyFlatSpec with Matchers:
  private val recipe = Files.readString(Path.of("Containerfile"))
  private val pom = Files.readString(Path.of("pom.xml"))

  "The Containerfile" should "copy the jar the lab's build writes and run it with java -jar" in {
    val built = "<outputFile>\\$\\{project.build.directory\\}/([^<]+)</outputFile>".r.findFirstMatchIn(pom).get.group(1)
    val copied = """(?m)^COPY (\S+) (\S+)$""".r.findFirstMatchIn(recipe).get
    copied.group(1) shouldBe built
    recipe should include(s"""ENTRYPOINT ["java", "-jar", "${copied.group(2)}"]""")
  }

  it should "start from a JDK (the attach API and jcmd), of a release the lab runs on" in {
    val base = """(?m)^FROM \S+:(\d+)-jdk\S*$""".r.findFirstMatchIn(recipe).map(_.group(1).toInt)
    withClue(s"FROM of lab/Containerfile: ")(base.exists(_ >= 17) shouldBe true)
  }
