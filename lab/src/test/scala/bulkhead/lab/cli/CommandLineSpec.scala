package bulkhead.lab.cli

import bulkhead.lab.model.Target
import bulkhead.lab.process.Children
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import scala.concurrent.duration.*
import scala.util.chaining.*

/**
 * Every bad flag or value of the service, the stub and the lab, run as the real programs: a message naming the bad
 * flag, key or value, a non-zero exit, and nothing started.
 */
@Slow
class CommandLineSpec extends AnyFlatSpec with Matchers:
  private val launch = Fixtures.launch
  private val labClasspath =
    s"${java.nio.file.Path.of("target/classes").toAbsolutePath}:${java.nio.file.Files.readString(
      java.nio.file.Path.of("target/runtime-classpath.txt")).trim}"

  // Each program runs for a second at most: C1 alone and the serial collector start it on less CPU, and nothing it does
  // here depends on either.
  private def run(classpath: String, main: String, args: Seq[String]): (Int, String) =
    val p = ProcessBuilder((Seq(launch.java) ++ launch.jvmFlags ++ Seq("-Xmx128m", "-XX:TieredStopAtLevel=1",
      "-XX:+UseSerialGC", "-cp", classpath, main) ++ args)*)
      .redirectErrorStream(true).start()
    val out = scala.concurrent.Future(String(p.getInputStream.readAllBytes()))(scala.concurrent.ExecutionContext.global)
    if !p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) then
      p.destroyForcibly()
      fail(s"$main ${args.mkString(" ")} did not exit in 60 s")
    (p.exitValue(), scala.concurrent.Await.result(out, 5.seconds))

  /**
   * `check` on every case, three programs at a time (a JVM's start is mostly one thread: on 2 cores three overlap);
   * every case runs, and a failure names its case.
   */
  private def eachAtOnce[A](cases: Seq[A])(check: A => Unit): Unit =
    val pool = java.util.concurrent.Executors.newFixedThreadPool(3)
    try
      val ran = cases.map(c => pool.submit(() => scala.util.Try(check(c))))
      val failures = ran.map(_.get(120, java.util.concurrent.TimeUnit.SECONDS)).collect { case scala.util.Failure(e) => e }
      failures.headOption.foreach(first => fail(s"${failures.size} of ${cases.size} cases failed; the first: " +
        first.getMessage, first))
    finally pool.shutdownNow()

  private def refused(classpath: String, main: String, args: Seq[String], named: String): Unit =
    val (code, out) = run(classpath, main, args)
    withClue(s"${args.mkString(" ")} -> exit $code: $out") {
      code should not be 0
      out should include(named)
      out should not include "\tat "
      out should not include "listening"
    }

  private val serviceBad: Seq[(Seq[String], String)] = Seq(
    Seq("--port", "70000") -> "--port",
    Seq("--port", "abc") -> "--port",
    Seq("--no-such-flag") -> "--no-such-flag",
    Seq("--max-connections", "0") -> "max-connections",
    Seq("--max-connections", "many") -> "max-connections",
    Seq("--backlog", "-1") -> "backlog",
    Seq("--blocking-pool-size", "0") -> "fixed-pool-size",
    Seq("--parallelism-min", "9", "--parallelism-max", "2") -> "parallelism-max",
    Seq("--routees", "0") -> "routees",
    Seq("--max-in-flight", "-5") -> "max-in-flight",
    Seq("--soap-mode", "telepathic") -> "soap.mode",
    Seq("--soap-endpoint", "not a url") -> "soap.endpoint",
    Seq("--redis-uri", "http://x") -> "redis.uri",
    Seq("--redis-connections", "some") -> "redis.connections",
    Seq("--metrics-port", "99999") -> "metrics.port",
    Seq("--host", "0.0.0.0") -> "--metrics-port",
    Seq("--redis-uri", "redis://:hunter2@127.0.0.1:6379") -> "--redis-password-file",
    Seq("--redis-password-file", "/no/such/password") -> "password-file",
    Seq("--set", "bulkhead.no.such.key=1") -> "bulkhead.no.such.key",
    Seq("--set", "novalue") -> "--set",
    Seq("--set", "bulkhead.service.server.idle-timeout=forever") -> "idle-timeout",
    Seq("--set", "bulkhead.service.server.fast-path=maybe") -> "fast-path",
    Seq("--set", "bulkhead.service.metrics.per-request=sometimes") -> "per-request",
    Seq("--config", "/no/such/file.conf") -> "/no/such/file.conf")

  "The service" should "refuse every bad flag or value with a message naming it" in {
    eachAtOnce(serviceBad)((args, named) => refused(launch.serviceClasspath, "bulkhead.service.Main", args, named))
  }

  private val stubBad: Seq[(Seq[String], String)] = Seq(
    Seq("--port", "-2") -> "--port",
    Seq("--latency", "slow") -> "slow",
    Seq("--latency", "uniform:9:1") -> "uniform:9:1",
    Seq("--fault", "meteor=0.5") -> "meteor",
    Seq("--fault", "reset=2") -> "reset=2",
    Seq("--customers", "0") -> "--customers",
    Seq("--admin-port", "70000") -> "--admin-port",
    Seq("--host", "0.0.0.0") -> "admin-port",
    Seq("--what") -> "--what")

  "The stub" should "refuse every bad flag or value with a message naming it" in {
    eachAtOnce(stubBad)((args, named) => refused(launch.stubClasspath, "bulkhead.stub.Main", args, named))
  }

  "The peers" should "refuse bad flags with a message naming them" in {
    (for
      peer <- Target.JvmPeers
      (args, named) <- Seq(Seq("--port", "abc") -> "--port", Seq("--bogus", "1") -> "--bogus",
        Seq("--blocking-pool-size", "0") -> "--blocking-pool-size", Seq("--port") -> "--port")
    yield (peer, args, named)).pipe(eachAtOnce(_)((peer, args, named) =>
      refused(launch.peers(peer), peer.mainClass, args, named)))
  }

  "The Jetty and Tomcat peers" should "refuse a thread pool they cannot have, naming the flag" in {
    (for
      peer <- Seq(Target.Jetty, Target.Tomcat)
      (args, named) <- Seq(Seq("--max-threads", "0") -> "--max-threads", Seq("--min-threads", "abc") -> "--min-threads",
        Seq("--max-threads", "4", "--min-threads", "8") -> "--min-threads")
    yield (peer, args, named)).pipe(eachAtOnce(_)((peer, args, named) =>
      refused(launch.peers(peer), peer.mainClass, args, named)))
  }

  private val labBad: Seq[(Seq[String], String)] = Seq(
    Seq("fly") -> "fly",
    Seq("run", "--bogus") -> "--bogus",
    Seq("run") -> "FILE|DIR",
    Seq("diagnose", "--pid", "1") -> "--url",
    Seq("diagnose", "--pid", "1", "--url", "ftp://10.0.0.1/") -> "ftp://10.0.0.1/",
    Seq("diagnose", "--pid", "1", "--url", "http://127.0.0.1:1/", "--duration", "forever") -> "forever",
    Seq("report", "/no/such/run") -> "/no/such/run",
    Seq("accuracy", "--bogus") -> "--bogus",
    Seq("run", "/no/such/scenario.conf") -> "/no/such/scenario.conf",
    Seq("threads", "--pid", "abc") -> "abc",
    Seq("threads", "--pid", "1", "--every", "soon") -> "soon",
    Seq("threads", "--pid", "1", "--count", "0") -> "--count",
    Seq("threads") -> "--pid PID or --jmx HOST:PORT",
    Seq("threads", "--jmx", "db:seven") -> "'db:seven' is not HOST:PORT",
    Seq("threads", "--pid", "1", "--jmx-credentials", "/tmp/c") -> "--jmx-credentials goes with --jmx",
    Seq("threads", "--pid", "999999999") -> "no process 999999999",
    Seq("diagnose", "--pid", "1", "--no-load", "--every", "0s") -> "--every must be a duration",
    Seq("bench", "hello", "--duration", "forever") -> "--duration must be a duration like 20s",
    Seq("capacity", "--jmx", "127.0.0.1:9010") -> "--pid or --jmx needs --url",
    Seq("capacity", "--pid", "1", "--jmx", "127.0.0.1:9010", "--url", "http://127.0.0.1:1/") -> "one of them",
    Seq("diagnose", "--pid", "1", "--jmx", "127.0.0.1:9010", "--no-load") -> "--pid PID or --jmx HOST:PORT",
    Seq("diagnose", "--jmx", "127.0.0.1:9010", "--url", "ftp://10.0.0.1/") -> "ftp://10.0.0.1/",
    Seq("diagnose", "--jmx", "127.0.0.1:9010", "--no-load", "--jmx-credentials", "/no/such/credentials") ->
      "/no/such/credentials",
    Seq("gate") -> "NEW_DIR",
    Seq("gate", "--baseline", "/no/such/baseline", "/tmp") -> "/no/such/baseline",
    Seq("gate", "--baseline", "/tmp", "/tmp", "--noise-floor", "200") -> "--noise-floor",
    Seq("analyze", "/no/such/dump.txt") -> "/no/such/dump.txt",
    Seq("diagnose", "--pid", "1", "--url", "http://127.0.0.1:1/", "--header", "Authorization") ->
      "--header: a header is 'Name: value', with a colon",
    Seq("diagnose", "--pid", "1", "--url", "http://127.0.0.1:1/", "--body", "@/no/such/body.json") ->
      "no such body file: /no/such/body.json",
    Seq("faults", "--only", "meteor") -> "meteor",
    Seq("faults", "--fast") -> "--fast",
    Seq("faults", "--soap-modes", "turbo") -> "turbo",
    Seq("demo", "--quick") -> "--quick",
    Seq("bench", "teleport") -> "teleport",
    Seq("bench", "hello", "--rounds", "0") -> "--rounds",
    Seq("bench", "ab", "--connections", "0") -> "--connections",
    Seq("bench", "report") -> "bench report needs the directory",
    Seq("bench", "report", "/no/such/bench") -> "/no/such/bench",
    Seq("bench", "hello", "/tmp") -> "bench hello takes no directory",
    Seq("bench", "hello", "--set", "fast-path") -> "--set needs key=value, was 'fast-path'",
    Seq("cluster-faults", "--nodes", "9") -> "--nodes must be 2..5, was 9",
    Seq("capacity") -> "give scenario files, or --pid (or --jmx) and --url",
    Seq("capacity", "--pid", "1") -> "--pid or --jmx needs --url",
    Seq("capacity", "--pid", "1", "--url", "ftp://10.0.0.1/") -> "ftp://10.0.0.1/",
    Seq("capacity", "--steps", "0", "x.conf") -> "--steps must be 1..50, was 0",
    Seq("capacity", "--max-rate", "-3", "x.conf") -> "--max-rate must be above 0",
    Seq("capacity", "--duration", "forever", "x.conf") -> "forever",
    Seq("capacity", "x.conf", "--pid", "1", "--url", "http://127.0.0.1:1/") -> "exclude each other",
    Seq("capacity", "/no/such/scenario.conf") -> "/no/such/scenario.conf",
    Seq("capacity", "--bogus") -> "--bogus")

  "The lab" should "refuse every bad command, flag or value with a message naming it" in {
    eachAtOnce(labBad)((args, named) => refused(labClasspath, "bulkhead.lab.LabMain", args, named))
  }

  it should "answer --version with the release the parent pom declares, no SNAPSHOT, and exit 0" in {
    val pom = java.nio.file.Files.readString(java.nio.file.Path.of("../pom.xml"))
    val release = "<bulkhead.release>([^<]+)</bulkhead.release>".r.findFirstMatchIn(pom).get.group(1)
    val version = "<version>([^<]+)</version>".r.findFirstMatchIn(pom).get.group(1)
    version should (equal(release) or equal(s"$release-SNAPSHOT"))
    for args <- Seq(Seq("--version"), Seq("version")) do
      val (code, out) = run(labClasspath, "bulkhead.lab.LabMain", args)
      withClue(s"${args.mkString(" ")} -> exit $code: $out") {
        code shouldBe 0
        out.trim shouldBe s"bulkhead lab $release"
      }
  }

  it should "answer --help on every command with its usage and exit 0, starting nothing" in {
    (bulkhead.lab.LabMain.commands.map(_.name).map(c => Seq(c, "--help")) ++
      Seq(Seq("bench", "report", "--help"), Seq("bench", "hello", "-h"), Seq("--help")))
      .pipe(eachAtOnce(_) { args =>
        val (code, out) = run(labClasspath, "bulkhead.lab.LabMain", args)
        withClue(s"${args.mkString(" ")} -> exit $code: $out") {
          code shouldBe 0
          out.toLowerCase should include("usage")
          out should not include "Error"
        }
      })
  }
