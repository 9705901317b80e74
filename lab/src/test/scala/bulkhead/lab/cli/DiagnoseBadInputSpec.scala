package bulkhead.lab.cli

import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.io.{ByteArrayOutputStream, PrintStream}
import java.net.{InetAddress, ServerSocket}
import java.nio.file.Files

/**
 * `lab diagnose` given a bad value of the user's requests or meters: one line naming it, exit 2, and nothing started
 * (no load, no sample: the JVM named is this test's own, which nothing may touch). The port refused is one that was
 * free a moment ago.
 */
class DiagnoseBadInputSpec extends AnyFlatSpec with Matchers:
  private val self = ProcessHandle.current.pid.toString
  private val closedPort =
    val s = ServerSocket(0, 1, InetAddress.getLoopbackAddress)
    try s.getLocalPort finally s.close()
  private val dir = Scratch.dir("diagnose-bad")
  private val targets = Files.writeString(dir.resolve("targets.txt"), "GET http://127.0.0.1:1/a\n\nPOST\n")

  private def run(args: String*): (Int, String, String) =
    val (out, err) = (ByteArrayOutputStream(), ByteArrayOutputStream())
    val before = System.err
    System.setErr(PrintStream(err, true))
    try
      val code = Console.withOut(out)(DiagnoseCommand.main(args ++ Seq("--out", dir.resolve("out").toString)))
      (code, out.toString, err.toString)
    finally System.setErr(before)

  Seq(
    Seq("--url", "http://127.0.0.1:1/", "--header", "Authorization Bearer x") -> "a header is 'Name: value'",
    Seq("--url", "http://127.0.0.1:1/", "--body", "@/no/such/order.json") -> "no such body file: /no/such/order.json",
    Seq("--targets", targets.toString) -> "line 3: a target starts with 'METHOD URL'",
    Seq("--url", "http://127.0.0.1:1/", "--metrics", s"http://127.0.0.1:$closedPort/metrics") ->
      s"--metrics: cannot scrape http://127.0.0.1:$closedPort/metrics",
    Seq("--url", "http://127.0.0.1:1/", "--metrics", "http://127.0.0.1:1/a", "--metrics", "http://127.0.0.1:1/b") ->
      "give one --metrics per JVM sampled").foreach { (args, said) =>
    "lab diagnose" should s"refuse ${args.filterNot(_.startsWith("--")).last.take(60)} with one line and exit 2" in {
      val (code, out, err) = run(Seq("--pid", self) ++ args*)
      withClue(s"stdout: $out\nstderr: $err") {
        code shouldBe 2
        err should include(said)
        err.linesIterator.count(l => l.nonEmpty && !l.startsWith("Try --help")) shouldBe 1
        out shouldBe empty
        Files.exists(dir.resolve("out")) shouldBe false
      }
    }
  }
