package bulkhead.lab.cli

import bulkhead.lab.record.OfflineRun
import bulkhead.lab.report.EvidenceReport
import bulkhead.lab.sample.{Deadlocks, DumpFiles, JfrRecording}
import scopt.OParser

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * `lab analyze FILE...`: evidence taken from a JVM without the lab, read offline (the dumps never leave the host): a
 * thread dump (text, or JSON with virtual threads), a series of them (several files, or a folder), or a JFR recording.
 * It prints the pools and what their threads queue on (over time, for a series), the resource the threads wait on
 * with its chain and, with `--rate`, that resource's hold and cap. Exit 0, 1 when a deadlock is found, 2 on bad input.
 */
object AnalyzeCommand extends LabCommand:
  val name = "analyze"
  val summary = "thread dumps (text or JSON, one or a series) or a JFR recording read offline: what the threads " +
    "wait on, its chain, and with --rate its cap; exit 1 on a deadlock"

  final case class Options(files: Seq[Path] = Nil, rate: Option[Double] = None, every: FiniteDuration = 100.millis)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(programName("bulkhead lab analyze"), head(summary),
      arg[String]("FILE...").unbounded()
        .text("jcmd <pid> Thread.print -l > dump.txt; jcmd <pid> Thread.dump_to_file -format=json dump.json; several " +
          "of either, or a folder of them (a series, in name order), each dump followed by a scrape of the service's " +
          "Prometheus meters where there is one; or a JFR recording (record it with the lab's " +
          s"${JfrRecording.Settings}: jcmd <pid> JFR.start settings=bulkhead-waits.jfc duration=60s filename=waits.jfr)")
        .action((f, o) => o.copy(files = o.files :+ Path.of(f))),
      opt[Double]("rate").valueName("<req/s>")
        .text("the requests per second through the service while the evidence was taken (its own counter): gives " +
          "the resource's hold time and cap; without it, from the service's request counter when scrapes of its " +
          "Prometheus meters lie beside the dumps")
        .validate(r => if r > 0 && !r.isInfinite then success else failure(s"--rate must be above 0 req/s, was $r"))
        .action((r, o) => o.copy(rate = Some(r))),
      CommonFlags.durationFlag(b, "every", "a JFR recording read as a dump every this long", "100ms")(
        (o, d) => o.copy(every = d)),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    analyze(o) match
      case Left(e) =>
        System.err.println(s"bulkhead lab analyze: $e")
        2
      case Right((report, deadlocked)) =>
        println(report)
        if deadlocked then 1 else 0
  }

  /** The report, and whether a deadlock was found; or why the evidence cannot be read. */
  def analyze(o: Options): Either[String, (String, Boolean)] =
    DumpFiles.read(o.files, o.every.toMillis / 1000.0).flatMap { dumps =>
      if dumps.isEmpty then Left(s"no dump could be read from ${o.files.mkString(" ")}") else Right(dumps)
    }.map { dumps =>
      val jfr = o.files.size == 1 && JfrRecording.isRecording(o.files.head)
      val source =
        if jfr then f"JFR recording ${o.files.head}: ${dumps.size} instants every ${o.every.toMillis} ms"
        else if dumps.size == 1 then s"thread dump ${o.files.head}"
        else s"series ${o.files.mkString(" ")}"
      val metered = o.rate.fold(OfflineRun.meteredRate(dumps))(_ => None)
      val rated = source + metered.fold("")(r => f"; $r%.2f req/s by the service's request counter in its scrapes")
      val record = OfflineRun("analyze", rated, dumps, o.rate.orElse(metered))
      val deadlocks = dumps.flatMap(d => Deadlocks.of(d.dump)).distinct
      val single = Option.when(dumps.size == 1)(dumps.head.dump)
      (EvidenceReport.render(record, rated, single, o.rate.orElse(metered).isDefined, deadlocks), deadlocks.nonEmpty)
    }
