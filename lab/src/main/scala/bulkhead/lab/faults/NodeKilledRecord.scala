package bulkhead.lab.faults

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker

import java.nio.file.{Files, Path}

/**
 * One second of a node-killed run as the front saw the cluster: members up, members unreachable, and the routees its
 * router lists on the killed node (None: none listed). All None when the front's /metrics did not answer.
 */
final case class ClusterSecond(second: Int, membersUp: Option[Double], unreachable: Option[Double],
    killedRoutees: Option[Double]):
  def scraped: Boolean = membersUp.isDefined

/** A node that stayed up: its platform threads and heap before the kill and after the run (see ServiceGauges). */
final case class SurvivorResources(node: String, before: Resources, after: Resources)

/**
 * What a node-killed run recorded: the cluster (`nodes`, the front first; `killed`), the load and its bound, the
 * requests and the front's gauges as any fault run records them (`run`: injected = the kill, cleared = the restart's
 * launch), the cluster second by second, and the survivors' resources. Two JSON files: `run` in the faults suite's
 * format, the rest beside it.
 */
final case class NodeKilledRecord(nodes: Seq[String], killed: String, clients: Int, bound: Double, boundWhat: String,
    run: FaultRecord, cluster: Seq[ClusterSecond], survivors: Seq[SurvivorResources]):
  def killAt: Double = run.injectAt
  def restartAt: Double = run.clearAt

object NodeKilledRecord:
  /** Everything but `run`, which FaultRecord writes and reads itself. */
  private final case class ClusterPart(nodes: Seq[String], killed: String, clients: Int, bound: Double,
      boundWhat: String, cluster: Seq[ClusterSecond], survivors: Seq[SurvivorResources])

  private given JsonValueCodec[ClusterPart] = JsonCodecMaker.make

  def write(r: NodeKilledRecord, dir: Path, name: String): Unit =
    Files.createDirectories(dir)
    Files.writeString(dir.resolve(s"$name.json"), r.run.toJson)
    Files.write(dir.resolve(s"$name-cluster.json"), writeToArray(ClusterPart(r.nodes, r.killed, r.clients, r.bound,
      r.boundWhat, r.cluster, r.survivors), WriterConfig.withIndentionStep(1)))

  def read(dir: Path, name: String): NodeKilledRecord =
    val run = FaultRecord.read(dir.resolve(s"$name.json"))
    val c = readFromArray[ClusterPart](Files.readAllBytes(dir.resolve(s"$name-cluster.json")))
    NodeKilledRecord(c.nodes, c.killed, c.clients, c.bound, c.boundWhat, run, c.cluster, c.survivors)
