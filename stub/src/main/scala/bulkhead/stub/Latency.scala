package bulkhead.stub

import java.util.concurrent.ThreadLocalRandom

/** How long the stub waits before answering, in milliseconds. */
enum Latency:
  case Fixed(ms: Long)
  case Uniform(minMs: Long, maxMs: Long)
  case Normal(meanMs: Double, sdMs: Double)

  def sampleMs(): Long = this match
    case Fixed(ms) => ms
    case Uniform(min, max) => ThreadLocalRandom.current().nextLong(min, max + 1)
    case Normal(mean, sd) => math.max(0L, math.round(mean + sd * ThreadLocalRandom.current().nextGaussian()))

  def describe: String = this match
    case Fixed(ms) => s"fixed:$ms"
    case Uniform(min, max) => s"uniform:$min:$max"
    case Normal(mean, sd) => s"normal:${mean.toLong}:${sd.toLong}"

object Latency:
  /** Parses "fixed:1000", "uniform:500:1500" or "normal:1000:100". */
  def parse(s: String): Either[String, Latency] =
    def nums(parts: Seq[String]) = parts.map(_.trim.toLongOption)
    s.split(':').toSeq match
      case Seq("fixed", a) => nums(Seq(a)) match
          case Seq(Some(ms)) if ms >= 0 => Right(Fixed(ms))
          case _ => Left(s"bad latency '$s': fixed:<ms>, ms >= 0")
      case Seq("uniform", a, b) => nums(Seq(a, b)) match
          case Seq(Some(lo), Some(hi)) if lo >= 0 && hi >= lo => Right(Uniform(lo, hi))
          case _ => Left(s"bad latency '$s': uniform:<min>:<max>, 0 <= min <= max")
      case Seq("normal", a, b) => nums(Seq(a, b)) match
          case Seq(Some(mean), Some(sd)) if mean >= 0 && sd >= 0 => Right(Normal(mean.toDouble, sd.toDouble))
          case _ => Left(s"bad latency '$s': normal:<mean>:<sd>, both >= 0")
      case _ => Left(s"bad latency '$s': expected fixed:<ms>, uniform:<min>:<max> or normal:<mean>:<sd>")
