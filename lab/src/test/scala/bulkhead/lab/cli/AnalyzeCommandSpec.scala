package bulkhead.lab.cli

import bulkhead.lab.load.WrkParser
import bulkhead.lab.report.EvidenceReport
import bulkhead.lab.sample.DumpFiles
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.file.{Files, Path}

/**
 * `lab analyze` on evidence recorded from the zoo's services under wrk, as production would hand it over: a JSON dump
 * with virtual threads (Spring Boot on virtual threads, its HikariCP pool of 4 full), a series of four jstack dumps
 * (Undertow, a semaphore of 4 permits), a JFR recording of 8 s taken with the lab's settings (Undertow on HikariCP,
 * 4 connections), and the rate wrk measured meanwhile (its recorded output). Each names the resource the threads wait
 * on; with the rate, its cap.
 */
class AnalyzeCommandSpec extends AnyFlatSpec with Matchers:
  private def fixture(name: String): Path = Path.of(getClass.getResource(s"/fixtures/$name").toURI)
  private def rateOf(wrk: String) = WrkParser.parse(Fixtures.text(wrk)).fold(e => fail(e), _.requestsPerSecond)

  /** The command run in this JVM: its exit code, what it printed, and what it said on stderr. */
  private def run(args: String*): (Int, String, String) =
    val (out, err) = (ByteArrayOutputStream(), ByteArrayOutputStream())
    val before = System.err
    System.setErr(PrintStream(err, true))
    try
      val code = Console.withOut(out)(AnalyzeCommand.main(args))
      (code, out.toString, err.toString)
    finally System.setErr(before)

  private def analyzed(args: String*): String =
    val (code, out, err) = run(args*)
    withClue(err)(code shouldBe 0)
    out

  "lab analyze" should "name HikariCP's borrow as what a JSON dump's virtual threads wait on" in {
    val out = analyzed(fixture("threaddump-zoo-spring-hikari-virtual-pool4-c20-jdk25.json").toString)
    out should include("tomcat-handler: 22 threads, 22 busy")
    out should include("=> the threads wait on connection-pool at com.zaxxer.hikari.util.ConcurrentBag.borrow")
    // The chain runs from the virtual threads that wait to what the holders do.
    out should include("tomcat-handler: 22.0 of 22 threads busy, 17.0 of them waiting on it")
    out should include("holders wait in a socket read")
    out should include("give --rate R")
  }

  it should "read a folder of dumps as a series: the semaphore's permits held and waited for in each dump" in {
    val out = analyzed(fixture("series-zoo-undertow-semaphore-permits4-c12-jdk25").toString)
    out should include("4 dumps over 5.0 s")
    out.linesIterator.find(_.startsWith("java.util.concurrent.Semaphore$NonfairSync")).get.split("\\s+").drop(2)
      .takeRight(4).toSeq shouldBe Seq("4/8", "4/8", "4/8", "4/8")
    out should include("=> the threads wait on semaphore at bulkhead.zoo.UndertowSemaphore")
  }

  it should "give the semaphore's hold and cap from a series and the rate wrk measured meanwhile" in {
    val rate = rateOf("wrk-zoo-undertow-semaphore-permits4-c12-jdk25.txt")
    val dir = fixture("series-zoo-undertow-semaphore-permits4-c12-jdk25")
    val files = Files.list(dir).toArray.map(_.toString).sorted.toSeq
    val out = analyzed(files ++ Seq("--rate", rate.toString)*)
    val verdict = out.linesIterator.find(_.startsWith("=> analyze:")).get
    // 4 permits, each held 0.113 s (4 held / 35.49 req/s): a cap of the rate itself, the semaphore being full.
    verdict should include("(semaphore)")
    verdict should include("hold 0.113 s")
    verdict should include(f"bound $rate%.1f")
  }

  it should "name the connection pool from a JFR recording, and with the rate its cap of 4 connections / hold" in {
    val jfr = fixture("jfr-zoo-hikari-pg-pool4-c12-jdk25.jfr").toString
    analyzed(jfr) should include("=> the threads wait on connection-pool at com.zaxxer.hikari.util.ConcurrentBag.borrow")
    val rate = rateOf("wrk-zoo-hikari-pg-pool4-c12-jdk25.txt")
    val out = analyzed(jfr, "--rate", rate.toString)
    out should include("64 instants every 100 ms")
    val verdict = out.linesIterator.find(_.startsWith("=> analyze:")).get
    verdict should include("(connection-pool)")
    verdict should include("of 4 connections held")
    verdict should include("HikariCP: maximumPoolSize")
    // Each query sleeps 100 ms in PostgreSQL: the hold JFR's socket reads and parks give is a little above it.
    val bound = """bound ([\d.]+)""".r.findFirstMatchIn(verdict).get.group(1).toDouble
    bound shouldBe (4 / 0.105 +- 3.0)
  }

  it should "spread a long series over a table of at most 8 dumps, first and last among them" in {
    val out = analyzed(fixture("jfr-zoo-hikari-pg-pool4-c12-jdk25.jfr").toString)
    out should include(s"${EvidenceReport.Columns} of the 64 dumps, evenly spread (seconds 0.0, ")
    out.linesIterator.find(_.startsWith("pool ")).get.split("sample").length - 1 shouldBe EvidenceReport.Columns
  }

  "DumpFiles" should "order a series by the times its dumps state, not by the order the files are given in" in {
    val files = Files.list(fixture("series-zoo-undertow-semaphore-permits4-c12-jdk25")).toArray.map(_.asInstanceOf[Path])
      .sortBy(_.getFileName.toString).reverse.toSeq
    val dumps = DumpFiles.read(files, 0.1).fold(e => fail(e), identity)
    dumps.map(_.second) shouldBe Seq(0.0, 2.0, 3.0, 5.0)
    dumps.map(_.metrics) shouldBe Seq.fill(4)(None)
  }

  it should "pair a scrape of the service's meters with the dump before it" in {
    val dump = fixture("threaddump-zoo-spring-hikari-pool4-c30-jdk25.txt")
    val scrape = fixture("metrics-zoo-spring-hikari-pool4-c30-jdk25.txt")
    val read = DumpFiles.read(Seq(dump, scrape), 0.1).fold(e => fail(e), identity)
    read.size shouldBe 1
    read.head.metrics.flatMap(_.meters.find(_.family == "hikaricp")).flatMap(_.size).map(_.value) shouldBe Some(4.0)
    DumpFiles.read(Seq(scrape), 0.1).left.toOption.get should include("no thread dump among")
  }

  "lab analyze" should "exit 1 on a dump with a deadlock, naming its threads" in {
    val (code, out, _) = run(fixture("threaddump-deadlock-jdk25.txt").toString)
    code shouldBe 1
    out should include("DEADLOCK between: transfer-worker-1, transfer-worker-2")
  }

  Seq(
    Seq("/no/such/dump.txt") -> "no such file: /no/such/dump.txt",
    Seq(fixture("wrk-pool4-c16-jdk25.txt").toString) -> "not a thread dump",
    Seq(fixture("vm-version-jdk25.txt").toString, fixture("threaddump-pool4-jdk25.txt").toString) -> "not a thread dump",
    Seq("--rate", "0", fixture("threaddump-pool4-jdk25.txt").toString) -> "--rate must be above 0",
    Seq("--every", "soon", fixture("threaddump-pool4-jdk25.txt").toString) -> "--every must be a duration").foreach {
    (args, said) =>
      it should s"refuse ${args.map(a => Path.of(a).getFileName).mkString(" ")} with one line and exit 2" in {
        val (code, out, err) = run(args*)
        code shouldBe 2
        err should include(said)
        err.linesIterator.count(l => !l.startsWith("Try --help")) shouldBe 1
        out shouldBe empty
      }
  }

  it should "refuse a .jfr file that is not a JFR recording, saying so, with exit 2" in {
    val fake = Scratch.file("not-a-recording", ".jfr")
    try
      Files.writeString(fake, "FLR\u0000 but nothing else")
      val (code, _, err) = run(fake.toString)
      code shouldBe 2
      err should include("cannot read the JFR recording")
      Files.writeString(fake, "a text file")
      val (again, _, said) = run(fake.toString)
      again shouldBe 2
      said should include("not a JFR recording")
    finally Files.delete(fake)
  }
