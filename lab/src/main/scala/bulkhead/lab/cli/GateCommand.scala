package bulkhead.lab.cli

import bulkhead.lab.diagnose.VerdictJson
import bulkhead.lab.gate.{Gate, GateResult, JUnitXml}
import bulkhead.lab.record.{RecordJson, RunRecord}
import scopt.OParser

import java.nio.file.{Files, Path}

/**
 * `lab gate --baseline DIR NEW_DIR`: a CI gate on two recorded runs ([[Gate]]), and on the predictions NEW_DIR holds
 * (a run of `lab diagnose --expect`, which needs no baseline). Prints one line per case and check, writes a JUnit XML
 * report, and exits 0 when every check passes, 1 when one fails, 2 on bad input.
 */
object GateCommand extends LabCommand:
  val name = "gate"
  val summary = "CI gate: fail (exit 1) when a run's capping resource changed, its cap fell or CPU/request rose"

  final case class Options(baseline: Option[Path] = None, candidate: Option[Path] = None, junit: Option[Path] = None,
      floor: Double = Gate.NoiseFloor)

  private val parser =
    val b = OParser.builder[Options]
    import b.*
    OParser.sequence(
      programName("bulkhead lab gate"),
      head(summary),
      opt[String]("baseline").valueName("<dir>")
        .text("the run to compare with (its result.json files); without it, only NEW_DIR's predictions are checked")
        .action((d, o) => o.copy(baseline = Some(Path.of(d)))),
      arg[String]("NEW_DIR").text("the new run, written by lab run, bench or diagnose")
        .action((d, o) => o.copy(candidate = Some(Path.of(d)))),
      opt[String]("junit").valueName("<file>").text("the JUnit XML report (default <NEW_DIR>/gate.xml)")
        .action((f, o) => o.copy(junit = Some(Path.of(f)))),
      opt[Double]("noise-floor").valueName("<percent>")
        .text(f"the least noise a check allows, percent (default ${Gate.NoiseFloor * 100}%.0f)")
        .validate(p => if p >= 0 && p < 100 then success else failure(s"--noise-floor must be 0..100, was $p"))
        .action((p, o) => o.copy(floor = p / 100)),
      help("help").text("print this help"))

  def main(args: Seq[String]): Int = LabCommand.parse(parser, args, Options()) { o =>
    val candidate = o.candidate.get
    run(o.baseline, candidate, o.junit.getOrElse(candidate.resolve("gate.xml")), o.floor, println) match
      case Left(err) =>
        System.err.println(s"bulkhead lab gate: $err")
        2
      case Right(result) => if result.passed then 0 else 1
  }

  /** Reads the runs, compares them and checks the predictions, prints the lines, writes the report; Left on bad input. */
  def run(baseline: Option[Path], candidate: Path, junit: Path, floor: Double,
      say: String => Unit): Either[String, GateResult] =
    for
      before <- baseline.fold(Right(None))(b => read("baseline", b).map(Some(_)))
      after <- read("new run", candidate)
      verdicts <- VerdictJson.readAll(candidate).map(_._2.left.map(e => s"new run: $e"))
        .foldLeft[Either[String, Vector[VerdictJson.VerdictFile]]](Right(Vector.empty))((all, v) =>
          all.flatMap(a => v.map(a :+ _)))
      predictions = Gate.predictions(verdicts)
      compared = before.map(Gate.compare(_, after, floor))
      _ <- Either.cond(compared.nonEmpty || predictions.nonEmpty, (), s"no --baseline, and the new run $candidate " +
        "holds no prediction to check (a run of lab diagnose --expect DIR)")
      _ <- Either.cond(compared.forall(_.checks.nonEmpty), (), s"no case in both runs: the baseline " +
        s"${baseline.getOrElse("")} has ${before.fold("")(names)}, the new run $candidate has ${names(after)}")
      result = compared.fold(GateResult(predictions, Nil, Nil, floor))(c => c.copy(checks = c.checks ++ predictions))
      file <- write(junit, JUnitXml.render(result, baseline.map(b => "baseline" -> b.toString).toSeq ++
        Seq("new" -> candidate.toString, "noise-floor" -> floor.toString)))
    yield
      result.lines.foreach(say)
      say(result.summary)
      say(s"junit: $file")
      result

  private def read(what: String, dir: Path): Either[String, Seq[RunRecord]] =
    RecordJson.readAll(dir).left.map(e => s"$what: $e")

  private def names(records: Seq[RunRecord]) =
    records.map(r => s"${r.info.name} (${r.info.target})").distinct.mkString(", ")

  private def write(file: Path, xml: String): Either[String, Path] =
    try
      Option(file.toAbsolutePath.getParent).foreach(Files.createDirectories(_))
      Right(Files.writeString(file, xml))
    catch case e: java.io.IOException => Left(s"cannot write the JUnit report $file: $e")
