package bulkhead.lab.cli

import bulkhead.lab.diagnose.Verification
import bulkhead.lab.process.Environment
import bulkhead.lab.record.RecordJson
import bulkhead.lab.report.{AccuracyReport, SuiteReport}
import scopt.OParser

import java.nio.file.{Files, Path}

/** `lab report DIR`: the report of a run directory rendered again from its result.json files alone. */
object ReportCommand extends LabCommand:
  val name = "report"
  val summary = "render a run's report again from its result.json files (diagnosis included)"

  private val parser =
    val b = OParser.builder[Option[Path]]
    import b.*
    OParser.sequence(programName("bulkhead lab report"), head(summary),
      arg[String]("DIR").text("a directory written by lab run, demo, accuracy, diagnose, faults or cluster-faults")
        .action((d, _) => Some(Path.of(d))),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, None) { dir =>
    val d = dir.get
    RecordJson.readAll(d) match
      case Left(err) =>
        System.err.println(s"bulkhead lab report: $err")
        2
      case Right(found) =>
        // Each `--verify` re-run right after its original (by path, `pool-4-verify/` sorts before `pool-4/`).
        val records = found.sortBy(r => (r.info.name.stripSuffix(Verification.VerifySuffix), r.info.name))
        val env = Environment.readFrom(d).getOrElse(Environment("not recorded", 0, 0, "?", records.head.info.jdk,
          "?", "?", Nil))
        val report = SuiteReport(s"bulkhead: ${d.getFileName}", s"./bulkhead lab report $d", env, records, Nil)
        val file = report.write(d)
        println(report.table)
        // A faults run: its checks again, read from the records.
        if !report.faults.checks.isEmpty then FaultChecksPrint(report, file, Nil)
        else println(s"\nreport: $file and ${d.resolve("report.html")}")
        // An accuracy run (every case names the resource it expects): its score again too.
        if records.exists(_.info.expectedResource.isDefined) then
          val accuracy = AccuracyReport(records)
          Files.writeString(d.resolve("accuracy.md"), accuracy.markdown)
          println(s"\n${accuracy.table}\n${accuracy.score}")
        0
  }
