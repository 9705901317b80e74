package bulkhead.lab.report

import bulkhead.lab.diagnose.{Bound, Diagnosis, LittlesLaw}
import bulkhead.lab.record.RunRecord
import bulkhead.lab.scenario.Scenario

/**
 * `bench cluster`: the same blocking work on 1, 2 and 3 nodes, each case against its Little's-law bound: every node's
 * SOAP work queue (threads per node / the third party's latency) or the clients' closed loop, whichever is lower.
 */
final case class ClusterBenchReport(command: String, env: Environment, cases: Seq[(Scenario, Bound, RunRecord)],
    failures: Seq[String], loadAverages: Seq[String] = Nil):

  private def f1(d: Double) = if d.isNaN || d.isInfinite then "-" else f"$d%.1f"

  /** `cluster-3-nodes: 72.4 req/s = 0.965 of the bound (...)`: the bench's line per case. */
  def lines: Seq[String] = cases.map { (s, bound, r) =>
    f"${s.name}: ${r.throughput}%.1f req/s = ${r.throughput / bound.perSecond}%.3f of the bound (${bound.what} = " +
      f"${bound.perSecond}%.0f req/s); ${Diagnosis(r).name}"
  }

  /** Mean busy threads of the work queue on each node over the measured phase, from the thread dumps. */
  private def busyPerNode(r: RunRecord): String =
    r.measuredByNode.map { n =>
      val busy = n.samples.flatMap(_.pools.find(_.pool.endsWith("work-queue")).map(_.busy.toDouble))
      if busy.isEmpty then "-" else f"${busy.sum / busy.size}%.1f"
    }.mkString(" / ")

  private val header = Seq("case", "nodes", "clients", "req/s", "bound (Little's law)", "ratio", "p50 / p99 ms",
    "not 2xx", "work-queue busy per node", "what caps it")

  def table: String =
    val rows = cases.map { (s, bound, r) =>
      val a = r.load.answers
      Seq(s.name, s.clusterNodes.toString, r.info.clients.toString, f1(r.throughput),
        f"${bound.perSecond}%.0f (${bound.what})", f"${r.throughput / bound.perSecond}%.3f",
        s"${f1(r.load.latency.p50Ms)} / ${f1(r.load.latency.p99Ms)}",
        (a.answered + a.unanswered - a.expected(r.info.expectedClass)).toString, busyPerNode(r), Diagnosis(r).name)
    }
    (Seq(header, header.map(_ => "---")) ++ rows).map(_.map(_.replace("|", "/")).mkString("| ", " | ", " |"))
      .mkString("\n")

  def markdown: String =
    val details = cases.map { (s, _, r) =>
      s"""### ${s.name}: ${s.title}
         |- nodes: ${if r.info.nodes.isEmpty then "one service, no cluster" else r.info.nodes.mkString(", ") + " (the first loaded)"}
         |- load: ${r.info.loadDescription}; service flags `${s.serviceFlags.mkString(" ")}`; stub latency ${s.stubLatency.getOrElse("-")}
         |- answers: ${r.load.answers.describe}; mean ${f1(r.load.latency.meanMs)} ms
         |- diagnosis: ${Diagnosis(r).explanation}
         |- data: [`${s.name}/result.json`](${s.name}/result.json); scenario `${s.source}`
         |""".stripMargin
    }.mkString("\n")
    s"""# bulkhead bench cluster
       |
       |Written by `$command`. Every figure below was measured in this run: the blocking SOAP client (a work queue of
       |threads, each held for the third party's 1 s) on one service and on Pekko Clusters of 2 and 3 nodes, one case
       |after another. Each case starts its own redis-server, stub and service JVMs on loopback, waits until the
       |cluster is joined (every node sees every member up, the front's router lists every node's routees), loads the
       |first node with wrk and samples every node's threads. No warm-up: lookups of a warm-up's closed connections
       |would still hold the work queues when the measured run starts.
       |
       |${env.markdown}
       |- the machine's load average (1, 5, 15 min; other work shares it) when each case started: ${
         if loadAverages.isEmpty then "-" else loadAverages.mkString("; ")}
       |
       |@@TABLE@@
       |
       |${lines.map("- " + _).mkString("\n")}
       |${if failures.isEmpty then "" else failures.map(f => s"- did not run: $f").mkString("\n", "\n", "\n")}
       |## Cases
       |
       |$details""".stripMargin.replace("@@TABLE@@", table)

object ClusterBenchReport:

  private val WorkQueueMax = "bulkhead.enrichment.soap.work-queue.max="

  /**
   * A case's bound: min(nodes x work-queue threads / work time, clients / work time), from the scenario itself (its
   * `--set bulkhead.enrichment.soap.work-queue.max=N`, `cluster.nodes`, clients and `work-seconds`).
   */
  def bound(s: Scenario): Either[String, Bound] =
    val threads = s.serviceFlags.sliding(2).collectFirst {
      case Seq("--set", kv) if kv.startsWith(WorkQueueMax) => kv.drop(WorkQueueMax.length).toIntOption
    }.flatten
    (threads, s.workSeconds) match
      case (None, _) => Left(s"${s.source}: service.flags must set --set ${WorkQueueMax}N (the bound needs it)")
      case (_, w) if w <= 0 => Left(s"${s.source}: work-seconds must give the third party's latency")
      case (Some(t), w) =>
        Right(LittlesLaw.bound(Seq(LittlesLaw.pool(s"${s.clusterNodes} x work-queue", s.clusterNodes * t, w),
          LittlesLaw.clients(s.load.concurrency, w))))
