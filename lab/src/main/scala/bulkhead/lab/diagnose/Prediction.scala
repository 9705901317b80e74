package bulkhead.lab.diagnose

import bulkhead.lab.record.RecordJson

import java.nio.file.Path

/**
 * What an earlier verdict predicted for the run after its fix (`--expect DIR`): the cap once the fix is applied, what
 * caps then, and the fix itself. Read from the earlier run's `verdict.json`, else diagnosed again from its
 * `result.json`.
 */
final case class Prediction(from: String, perSecond: Double, caps: String, fix: Option[String])

object Prediction:
  /** The prediction of the run in `dir`; Left when there is none to check (no run there, or no size to predict from). */
  def read(dir: Path): Either[String, Prediction] =
    val verdict = VerdictJson.read(dir).map(_.verdict).left.flatMap(noVerdict =>
      RecordJson.in(dir).toRight(s"--expect $dir: $noVerdict, and no ${RecordJson.FileName} either")
        .flatMap(RecordJson.read).map(Diagnosis(_)))
    verdict.flatMap(v => v.next.map(n => Prediction(dir.toString, n.perSecond, n.name, v.fix.map(_.sentence)))
      .toRight(s"--expect $dir: its verdict predicts nothing after a fix (" +
        v.fix.fold("it names no setting to change")(f => s"its fix, ${f.sentence}, has no size to predict from") + ")"))
