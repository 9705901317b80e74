package bulkhead.lab.process

import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.attribute.FileTime
import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/** Which JVM writes a classpath's class-data archive, which ones map it, and when one is kept. */
class ClassDataSpec extends AnyFlatSpec with Matchers:
  private val jdk = "/usr/bin/java"

  /** Two jars of a few bytes in a fresh directory, and the directory the archives go to. */
  private def jars(): (Seq[Path], Path) =
    val dir = Scratch.dir("class-data")
    (Seq("a.jar", "b.jar").map(n => Files.writeString(dir.resolve(n), n)), dir.resolve("archives"))

  private def classpath(entries: Seq[Path]) = entries.mkString(java.io.File.pathSeparator)
  private def option(use: ClassData.Use, name: String) = use.options.find(_.startsWith(s"-XX:$name="))
    .map(o => Path.of(o.drop(s"-XX:$name=".length)))

  /** The use of a classpath whose first JVM already started: the next one writes its archive. */
  private def writer(dir: Path, cp: Seq[Path]): ClassData.Use =
    ClassData.use(dir, jdk, classpath(cp)) shouldBe ClassData.Plain
    ClassData.use(dir, jdk, classpath(cp))

  "ClassData" should "have the second JVM of a classpath write its archive, and the JVMs after it map it" in {
    val (cp, dir) = jars()
    // The first starts as it would: a classpath started once is not worth an archive's writing.
    val second = writer(dir, cp)
    val partial = option(second, "ArchiveClassesAtExit").getOrElse(fail(s"no archive written: ${second.options}"))
    // While it runs, the next start as they would: one writer per archive.
    ClassData.use(dir, jdk, classpath(cp)) shouldBe ClassData.Plain
    Files.writeString(partial, "classes")
    second.exited(0)
    Files.exists(partial) shouldBe false
    val archive = dir.resolve(s"${ClassData.name(jdk, cp)}.jsa")
    Files.readString(archive) shouldBe "classes"
    option(ClassData.use(dir, jdk, classpath(cp)), "SharedArchiveFile") shouldBe Some(archive)
  }

  it should "keep no archive of a JVM killed or refused, and let the next one write it" in {
    val (cp, dir) = jars()
    ClassData.use(dir, jdk, classpath(cp)) shouldBe ClassData.Plain
    Seq(137, 1).foreach { code =>
      val use = ClassData.use(dir, jdk, classpath(cp))
      val partial = option(use, "ArchiveClassesAtExit").getOrElse(fail(s"no archive written: ${use.options}"))
      Files.writeString(partial, "part of the classes")
      use.exited(code)
      Files.exists(partial) shouldBe false
      Files.list(dir).count() shouldBe 0
    }
    // A SIGTERM a JVM does not handle ends it with 143: its archive is whole.
    val last = ClassData.use(dir, jdk, classpath(cp))
    Files.writeString(option(last, "ArchiveClassesAtExit").get, "classes")
    last.exited(143)
    option(ClassData.use(dir, jdk, classpath(cp)), "SharedArchiveFile") shouldBe defined
  }

  it should "leave a classpath with a directory without one, which HotSpot cannot archive" in {
    val (cp, dir) = jars()
    ClassData.use(dir, jdk, classpath(cp :+ cp.head.getParent)) shouldBe ClassData.Plain
    ClassData.use(dir, jdk, "") shouldBe ClassData.Plain
  }

  it should "name an archive for what it holds: a rebuilt jar or another java gets another" in {
    val (cp, _) = jars()
    val before = ClassData.name(jdk, cp)
    ClassData.name(jdk, cp) shouldBe before
    ClassData.name("/opt/jdk/bin/java", cp) should not be before
    Files.setLastModifiedTime(cp.head, FileTime.fromMillis(Files.getLastModifiedTime(cp.head).toMillis - 60_000))
    ClassData.name(jdk, cp) should not be before
  }

  it should "prune the archives of classpaths as they were, and half-written ones, keeping those as they are" in {
    val (cp, dir) = jars()
    Files.createDirectories(dir)
    val current = dir.resolve(s"${ClassData.name(jdk, cp)}.jsa")
    val stale = Seq(dir.resolve("0123456789abcdef01234567.jsa"), dir.resolve(s"${current.getFileName}.x.part"))
    (current +: stale).foreach(Files.writeString(_, "classes"))
    ClassData.prune(dir, jdk, Seq(classpath(cp), classpath(cp :+ cp.head.getParent)))
    Files.list(dir).toList.asScala.toSeq shouldBe Seq(current)
  }
