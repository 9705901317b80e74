package bulkhead.lab.process

import bulkhead.lab.model.Target
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/**
 * A JVM the lab starts three times from jars (the zoo, the quickest to start): the second archives its classes as it
 * stops, the third maps them.
 */
@Slow
class ClassDataStartSpec extends AnyFlatSpec with Matchers:
  "A JVM the lab starts again" should "write its class-data archive as it stops, and map it when started again" in {
    val dir = Scratch.dir("class-data-start")
    val archives = dir.resolve("archives")
    val launch = Fixtures.launch.copy(classData = Some(archives))
    withClue("the zoo's classes are newer than its jar (a directory HotSpot cannot archive): ./mvnw -pl peers/zoo " +
        "package: ") {
      launch.peers(Target.Zoo).split(':').forall(p => Files.isRegularFile(Path.of(p))) shouldBe true
    }
    val stack = Stack(launch, dir)
    def zoo() = stack.peer(Target.Zoo, Seq("--app", "undertow-lock"))
    // The first starts as it would, the second writes the archive: one after the other.
    (1 to 2).foreach { _ =>
      val z = zoo()
      Stack.get(z.url("/hello")) shouldBe Right("OK")
      z.child.stop()
    }
    // The archive takes its name once the JVM's exit is seen, a moment after stop returns.
    val deadline = System.nanoTime() + 10_000_000_000L
    def written = Files.list(archives).iterator().asScala.filter(_.toString.endsWith(".jsa")).toSeq
    while written.isEmpty && System.nanoTime() < deadline do Thread.sleep(50)
    val archive = written.headOption.getOrElse(fail(s"no archive in $archives: ${Files.list(archives).toList}"))
    val third = zoo()
    try
      Stack.get(third.url("/hello")) shouldBe Right("OK")
      // The JVM mapped the archive: its file is among the process's mappings.
      val maps = Files.readAllLines(Path.of(s"/proc/${third.child.pid}/maps")).asScala
      maps.exists(_.endsWith(archive.toString)) shouldBe true
    finally third.child.stop()
  }
