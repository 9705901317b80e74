package bulkhead.lab.cli

import bulkhead.lab.run.RunningJvm
import bulkhead.lab.sample.JmxAddress
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import scopt.OParser

import java.nio.file.Path
import scala.concurrent.duration.*

/** The flags several commands share, read one way: one unit, one default, one message for a bad value. */
class CommonFlagsSpec extends AnyFlatSpec with Matchers:
  private final case class Flags(jvm: JvmFlags = JvmFlags(), duration: FiniteDuration = CommonFlags.DefaultDuration,
      every: FiniteDuration = CommonFlags.DefaultEvery, connections: Int = CommonFlags.DefaultConnections,
      warmup: Option[FiniteDuration] = None, out: Option[Path] = None, url: String = "")

  private val parser =
    val b = OParser.builder[Flags]
    OParser.sequence(
      CommonFlags.jvm(b)(_.jvm, (o, j) => o.copy(jvm = j)),
      CommonFlags.duration(b, "how long")((o, d) => o.copy(duration = d)),
      CommonFlags.every(b)((o, d) => o.copy(every = d)),
      CommonFlags.connections(b)((o, n) => o.copy(connections = n)),
      CommonFlags.durationFlag(b, "warmup", "warm-up", "30s", zero = true)((o, d) => o.copy(warmup = Some(d))),
      CommonFlags.out(b, "test")((o, d) => o.copy(out = Some(d))),
      CommonFlags.url(b)((o, u) => o.copy(url = u)))

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

  they should "refuse connections out of range and a url off loopback, naming the value" in {
    parse("--connections", "0").left.toOption.get should include("--connections must be 1..100000, was 0")
    parse("--url", "http://10.0.0.1/").left.toOption.get should include("'http://10.0.0.1/'")
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
