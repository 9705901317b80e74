package bulkhead.lab.record

import bulkhead.lab.model.{Bound, CapName, Target}
import bulkhead.lab.scenario.SeedFigure

/**
 * What was run: the scenario (or the process a user pointed the lab at), the target, the load, and the machine. The
 * work time a seed declared is kept to report beside the measured hold time, and the Little's-law bound a benchmark
 * compares with; the diagnosis reads neither.
 *
 * @param target the [[Target]]'s name, or what else was loaded (`pid 4242` for a process the lab was pointed at)
 * @param nodes a cluster run's service nodes by cluster address (`host:port`), the front (the node loaded) first;
 *              empty for one service
 * @param expectedCap a diagnosis case's cap by construction (req/s), to score the predicted one against
 * @param expectedFix a diagnosis case's kind of fix ([[bulkhead.lab.model.FixKind]]'s key)
 * @param cpus the processors the served JVM was told it has (`-XX:ActiveProcessorCount`), when not the machine's
 * @param capacityStep the run's place on a capacity curve (`lab capacity`), when it is a step of one
 * @param compareWith the benchmark case this one is set against (its scenario's `compare-with`)
 * @param settings the service's settings in a sentence, when the run states them (the faults suite: those
 *                 `./bulkhead serve` ships)
 * @param drain the wait for the previous load's work in the service to end before this run; None when the target has
 *              no gauges of it (or the run is older)
 */
final case class RunInfo(name: String, title: String, target: String, url: String, loadDescription: String,
    clients: Int, serviceFlags: Seq[String], stubLatency: Option[String], redisCustomers: Option[Int],
    seed: Option[SeedFigure], declaredWorkSeconds: Option[Double], expectedClass: String,
    expectedResource: Option[CapName], source: String, jdk: String, cores: Int, startedAt: String,
    warmupSeconds: Double = 0.0, declaredBound: Option[Bound] = None, heap: Option[String] = None,
    nodes: Seq[String] = Nil, warmupConnections: Option[Int] = None, expectedCap: Option[Double] = None,
    expectedFix: Option[String] = None, cpus: Option[Int] = None, capacityStep: Option[CapacityStep] = None,
    compareWith: Option[String] = None, settings: Option[String] = None, drain: Option[Drain] = None):
  /** The server loaded, when it is one the lab starts. */
  def server: Option[Target] = Target.named(target)

object RunInfo:
  /** The JDK the served JVMs run: the launcher's (`BULKHEAD_JDK`), else this JVM's. */
  def servedJdk: String = sys.env.getOrElse("BULKHEAD_JDK", Runtime.version().toString)
