package bulkhead.lab.cli

import bulkhead.lab.run.RunningJvm
import bulkhead.lab.sample.JmxAddress
import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import scopt.OParser

import java.nio.file.Path
import scala.concurrent.duration.*

/** The flags several commands share, read one way: one unit, one default, one message for a bad value. */
class CommonFlagsSpec extends AnyFlatSpec with Matchers:
  private final case class Flags(jvm: JvmFlags = JvmFlags(), duration: FiniteDuration = CommonFlags.DefaultDuration,
      every: FiniteDuration = CommonFlags.DefaultEvery, connections: Int = CommonFlags.DefaultConnections,
      warmup: Option[FiniteDuration] = None, out: Option[Path] = None, url: String = "",
      requests: RequestFlags = RequestFlags(), metrics: Seq[String] = Nil)

  private val parser =
    val b = OParser.builder[Flags]
    OParser.sequence(
      CommonFlags.jvm(b)(_.jvm, (o, j) => o.copy(jvm = j)),
      CommonFlags.duration(b, "how long")((o, d) => o.copy(duration = d)),
      CommonFlags.every(b)((o, d) => o.copy(every = d)),
      CommonFlags.connections(b)((o, n) => o.copy(connections = n)),
      CommonFlags.durationFlag(b, "warmup", "warm-up", "30s", zero = true)((o, d) => o.copy(warmup = Some(d))),
      CommonFlags.out(b, "test")((o, d) => o.copy(out = Some(d))),
      CommonFlags.url(b)((o, u) => o.copy(url = u)),
      CommonFlags.requests(b)(_.requests, (o, r) => o.copy(requests = r)),
      CommonFlags.metrics(b)((o, u) => o.copy(metrics = o.metrics :+ u)))

  private def parse(args: String*): Either[String, Flags] =
    val (result, effects) = OParser.runParser(parser, args, Flags())
    result.toRight(effects.collect { case scopt.OEffect.ReportError(m) => m }.mkString("; "))

  "A duration flag" should "take 20s, 500ms, 2m, 1h and bare seconds as the same unit" in {
    parse("--duration", "20s").map(_.duration) shouldBe Right(20.seconds)
    parse("--duration", "20").map(_.duration) shouldBe Right(20.seconds)
    parse("--duration", "2m").map(_.duration) shouldBe Right(2.minutes)
    parse("--every", "500ms").map(_.every) shouldBe Right(500.millis)
    parse("--duration", "1h").map(_.duration) shouldBe Right(1.hour)
  }

  it should "refuse zero, a negative, a word and more than an hour, naming the flag and the value" in {
    for (flag, v) <- Seq("--duration" -> "0", "--every" -> "-1s", "--duration" -> "forever", "--duration" -> "2h") do
      val err = parse(flag, v).left.toOption.get
      err should include(s"$flag must be a duration like 20s, 2m or 500ms")
      err should include(s"was '$v'")
  }

  it should "take zero where the flag allows it (a warm-up of none)" in {
    parse("--warmup", "0").map(_.warmup) shouldBe Right(Some(Duration.Zero))
    parse("--warmup", "0s").map(_.warmup) shouldBe Right(Some(Duration.Zero))
  }

  it should "print a duration the way it reads it" in {
    Seq(20.seconds, 500.millis, 2.minutes, 1.hour).map(CommonFlags.text) shouldBe Seq("20s", "500ms", "2m", "1h")
    Seq(20.seconds, 500.millis, 2.minutes, 1.hour).map(d => CommonFlags.durationValue(CommonFlags.text(d))) shouldBe
      Seq(20.seconds, 500.millis, 2.minutes, 1.hour).map(Some(_))
  }

  "The shared flags" should "keep their one default when not given" in {
    val flags = parse().toOption.get
    (flags.duration, flags.every, flags.connections) shouldBe
      (CommonFlags.DefaultDuration, CommonFlags.DefaultEvery, CommonFlags.DefaultConnections)
  }

  they should "refuse connections out of range and a url that is not http(s), naming the value" in {
    parse("--connections", "0").left.toOption.get should include("--connections must be 1..100000, was 0")
    parse("--url", "ftp://10.0.0.1/").left.toOption.get should include("'ftp://10.0.0.1/'")
    parse("--metrics", "localhost:9090").left.toOption.get should include("--metrics must be an http:// or https://")
  }

  they should "take a URL on any host, over HTTP or HTTPS" in {
    parse("--url", "https://orders.internal:8443/orders").map(_.url) shouldBe Right("https://orders.internal:8443/orders")
  }

  "The request flags" should "give the user's request: method, headers in order, the body's file, --insecure" in {
    val body = java.nio.file.Files.writeString(Scratch.file("body", ".json"), "{}")
    val flags = parse("--method", "PUT", "--header", "Authorization: Bearer x", "--header", "X-A: 1",
      "--body", s"@$body", "--insecure").fold(e => fail(e), identity)
    val r = flags.requests.requests("https://h:8443/o").fold(e => fail(e), identity)
    (r.first.method, r.first.headers, r.first.body.length, r.insecure) shouldBe
      ("PUT", Seq("Authorization" -> "Bearer x", "X-A" -> "1"), 2, true)
    parse().map(_.requests.any) shouldBe Right(false)
  }

  Seq(
    Seq("--header", "Authorization Bearer x") -> "--header: a header is 'Name: value', with a colon",
    Seq("--body", "@/no/such/body.json") -> "--body: no such body file: /no/such/body.json",
    Seq("--body", "{}") -> "--body: a body is given as @FILE",
    Seq("--method", "get") -> "--method: not an HTTP method").foreach { (args, said) =>
    they should s"refuse ${args.mkString(" ")} at parse, saying '$said'" in {
      parse(args*).left.toOption.get should include(said)
    }
  }

  "A targets file" should "be read when the requests are, a bad line named, and exclude --url, --method and --body" in {
    val targets = Scratch.file("targets", ".txt")
    java.nio.file.Files.writeString(targets, "GET http://h:1/a\nAuthorization Bearer\n")
    parse("--targets", targets.toString).toOption.get.requests.requests("").left.toOption.get should
      include("--targets: targets file")
    parse("--targets", targets.toString).toOption.get.requests.requests("").left.toOption.get should
      include("line 2: a header is 'Name: value'")
    java.nio.file.Files.writeString(targets, "GET http://h:1/a\n\nPOST http://h:1/b\n")
    val flags = parse("--targets", targets.toString, "--header", "X-Lab: 1").toOption.get.requests
    flags.requests("").map(_.targets.map(_.headers)) shouldBe Right(Seq(Seq("X-Lab" -> "1"), Seq("X-Lab" -> "1")))
    flags.requests("http://h:1/").left.toOption.get should include("--targets and --url exclude each other")
    flags.copy(method = Some("PUT")).requests("").left.toOption.get should include("--method and --body go with --url")
    RequestFlags(targets = Some(Path.of("/no/such/targets"))).requests("").left.toOption.get should
      include("no such targets file")
  }

  "The JVM flags of a fleet" should "take --jmx again for each replica, and refuse it twice for a one-JVM command" in {
    val fleet = parse("--jmx", "127.0.0.1:9010", "--jmx", "127.0.0.1:9011").fold(e => fail(e), identity).jvm
    fleet.jvms shouldBe Seq(RunningJvm.ByJmx(JmxAddress("127.0.0.1", 9010), None),
      RunningJvm.ByJmx(JmxAddress("127.0.0.1", 9011), None))
    fleet.fleetProblem shouldBe None
    fleet.problem.get should include("--jmx is given once here")
    parse("--jmx", "h:1", "--jmx", "h:1").toOption.get.jvm.fleetProblem.get should include("names a JVM twice")
    parse("--metrics", "http://h:1/m", "--metrics", "https://h:2/m").map(_.metrics.size) shouldBe Right(2)
  }

  "The JVM flags" should "name one JVM, by pid or over JMX, and say what is wrong otherwise" in {
    parse("--pid", "42").map(_.jvm.jvm) shouldBe Right(RunningJvm.ByPid(42))
    parse("--jmx", "127.0.0.1:9010").map(_.jvm.jvm) shouldBe Right(RunningJvm.ByJmx(JmxAddress("127.0.0.1", 9010), None))
    parse().map(_.jvm.problem) shouldBe Right(Some("give the JVM to sample: --pid PID or --jmx HOST:PORT (one of them)"))
    parse("--pid", "42", "--jmx", "h:1").map(_.jvm.problem.isDefined) shouldBe Right(true)
    parse("--pid", "42", "--jmx-credentials", "/c").map(_.jvm.problem) shouldBe
      Right(Some("--jmx-credentials goes with --jmx"))
    parse("--pid", "0").left.toOption.get should include("--pid must be a process id, was 0")
  }

  "A JVM named by the flags" should "name its run and its results directory" in {
    RunningJvm.ByPid(4242).key shouldBe "pid-4242"
    RunningJvm.ByJmx(JmxAddress("::1", 9010), None).key shouldBe "jmx---1-9010"
  }
