package bulkhead.lab.bench

import bulkhead.lab.model.Target
import bulkhead.lab.record.RecordJson
import bulkhead.lab.report.BenchRow
import bulkhead.lab.run.{Progress, ScenarioRunner}
import bulkhead.lab.scenario.Scenario

import java.nio.file.Path

/**
 * Runs a benchmark's cases side by side: in each round every case on every one of its servers, interleaved (A B C,
 * A B C) so that a slow minute of the machine does not fall on one case only, each a fresh server measured by the
 * scenario runner and written as `<out>/<case>/<server>/round-<n>/result.json`.
 */
final class BenchRounds(runner: ScenarioRunner, out: Path, say: String => Unit):

  /** Every round of every case on every server: the `result.json` it wrote, or why it did not run. */
  def run(cases: Seq[Scenario], rounds: Int): Seq[Either[String, Path]] =
    val runs = for round <- 1 to rounds; s <- cases; target <- s.targets yield (round, s, target)
    val progress = Progress(runs.map((_, s, _) => BenchRounds.runSeconds(s)))
    for ((round, s, target), i) <- runs.zipWithIndex yield
      val label = if s.targets.size > 1 then s"${s.name} on $target" else s.name
      say(s"${progress.start(i)} round $round/$rounds, $label: ${s.load.describe(s.path)} " +
        s"(${s.warmup.toSeconds}s warm-up, not measured)")
      val dir = BenchRounds.directory(out, s.name, target, round)
      runner.runTarget(s, target, dir) match
        case Right(r) =>
          say("    " + BenchRow(s.name, target.name, Seq(r)).line(label))
          Right(dir.resolve(RecordJson.FileName))
        case Left(e) =>
          say(s"    did not run: $e")
          Left(e)

object BenchRounds:
  def directory(out: Path, name: String, target: Target, round: Int): Path =
    out.resolve(name).resolve(target.name).resolve(s"round-$round")

  /** Seconds a benchmark takes: per case, server and round, the start and stop of its processes, warm-up and load. */
  def estimateSeconds(cases: Seq[Scenario], rounds: Int): Double =
    rounds * cases.map(s => s.targets.size * runSeconds(s)).sum

  /** Seconds one run of a case on one server takes: the start and stop of its processes, warm-up and load. */
  def runSeconds(s: Scenario): Double =
    val load = s.load.seconds
    // Nodes of a cluster joined 10-19 s after their JVMs started here.
    val start = 8 + (if s.stubLatency.isDefined then 6 else 0) + (if s.redisCustomers.isDefined then 2 else 0) +
      (if s.clusterNodes > 1 then 20 else 0)
    (start + s.warmup.toSeconds + load).toDouble
