package bulkhead.stub

import java.util.concurrent.ThreadLocalRandom

/** A way the third party misbehaves. */
enum Fault(val key: String):
  /** HTTP 500 with a SOAP Fault (soapenv:Server). */
  case ServerError extends Fault("server-error")
  /** Never answers; the client must give up. Cleared, the stub answers what it held. */
  case NoAnswer extends Fault("no-answer")
  /**
   * Reads the call and never answers, not even once the fault is cleared: each call it took stays unanswered until
   * its client gives up (or `no-answer-hold` ends it), as a third party that hung keeps the calls it took when it comes
   * back. Only the calls after the clearing are answered.
   */
  case Hang extends Fault("hang")
  /** Closes the connection in the middle of the answer. */
  case Reset extends Fault("reset")
  /** 200 with XML that does not parse. */
  case MalformedXml extends Fault("malformed-xml")
  /** 200 with a DOCTYPE declaring an external entity (XXE). */
  case Xxe extends Fault("xxe")
  /** 200 with a DOCTYPE of nested entities (entity expansion). */
  case BillionLaughs extends Fault("billion-laughs")
  /** 200 with a valid envelope of several megabytes. */
  case Oversized extends Fault("oversized")
  /** 200 whose body arrives one byte every 100 ms. */
  case Trickle extends Fault("trickle")

object Fault:
  def parse(key: String): Either[String, Fault] =
    values.find(_.key == key).toRight(s"unknown fault '$key', expected one of ${values.map(_.key).mkString(", ")}")

/** Faults by rate (0..1). Drawn in declaration order; at most one fault per request. */
final case class FaultPlan(rates: Map[Fault, Double]):
  def draw(): Option[Fault] =
    if rates.isEmpty then None
    else
      val r = ThreadLocalRandom.current().nextDouble()
      var acc = 0.0
      Fault.values.find { f =>
        acc += rates.getOrElse(f, 0.0)
        r < acc
      }

  /** Each fault as `kind=rate`, in declaration order: what `--fault` and `stub.faults` take. */
  def entries: Seq[String] = rates.toSeq.sortBy(_._1.ordinal).map((f, r) => s"${f.key}=$r")

  def describe: String = if rates.isEmpty then "none" else entries.mkString(",")

object FaultPlan:
  val None: FaultPlan = FaultPlan(Map.empty)

  /** Parses entries "kind=rate"; the rates must add up to at most 1. */
  def parse(entries: Seq[String]): Either[String, FaultPlan] =
    val parsed = entries.filter(_.trim.nonEmpty).map { e =>
      e.split('=') match
        case Array(k, v) =>
          for
            fault <- Fault.parse(k.trim)
            rate <- v.trim.toDoubleOption.filter(r => r >= 0 && r <= 1).toRight(s"bad rate in '$e': 0..1")
          yield fault -> rate
        case _ => Left(s"bad fault '$e': expected kind=rate")
    }
    parsed.collectFirst { case Left(err) => err } match
      case Some(err) => Left(err)
      case scala.None =>
        val rates = parsed.collect { case Right(p) => p }.toMap
        if rates.values.sum > 1.0 + 1e-9 then Left(s"fault rates add up to ${rates.values.sum}, more than 1")
        else Right(FaultPlan(rates))
