package bulkhead.lab.testkit

import bulkhead.lab.model.{Answers, Latencies, LoadFigures, MetricsReading}
import bulkhead.lab.record.{LogLine, RunInfo, RunRecord}
import bulkhead.lab.sample.{PoolSample, ResourceSample, Sample, ThreadDump, WaitGraph}

/**
 * Run records built around recorded thread dumps: what a run of `seconds` seconds with `clients` closed-loop clients
 * would have written, for the diagnosis's unit tests. Recorded whole runs are in fixtures/records/.
 */
object Records:
  def run(clients: Int, seconds: Int, answers: Map[String, Long], meanMs: Double, pools: Seq[PoolSample] = Nil,
      metrics: Int => Option[MetricsReading] = _ => None, busyShare: Double = 0.3, serviceCores: Double = 0.2,
      log: Seq[LogLine] = Nil, target: String = "bulkhead", resources: Seq[ResourceSample] = Nil,
      outbound: Map[String, Int] = Map.empty): RunRecord =
    val samples = (0 to seconds).map { t =>
      Sample(t.toDouble, pools, Some(40), Some(300.0), Some(t * serviceCores), Some((t * 200 * busyShare).toLong),
        Some(t * 200L), metrics(t), resources = resources, outbound = outbound)
    }
    val answered = answers.values.sum
    val info = RunInfo("case", "", target, "http://127.0.0.1:1/x", "test", clients, Nil, None, None, None, None, "2xx",
      None, "test", "25", 2, "2026-11-22T00:00:00Z")
    RunRecord(info, LoadFigures("wrk", "test", clients, seconds.toDouble, Answers(answers, 0, 0, 0, 0),
      Latencies.ofMillis(Seq.fill(answered.min(1000).toInt)(meanMs)), Nil), samples, 0, seconds.toDouble, Nil, log)

  /**
   * A run of a server the lab did not write, every sample the recorded dump `fixture` (its pools and the resources its
   * threads wait on), answering `perSecond` for `clients` clients.
   */
  def ofDump(fixture: String, clients: Int, perSecond: Double, outbound: Map[String, Int] = Map.empty): RunRecord =
    val dump = ThreadDump.parse(Fixtures.text(fixture))
    run(clients, 10, Map("2xx" -> (perSecond * 10).round), clients * 1000 / perSecond, PoolSample.of(dump),
      target = "zoo", resources = WaitGraph.of(dump), outbound = outbound)

  /** bulkhead's /metrics at second `t` of a run: a pool's gauges and its completed-task counter at `rate` per second. */
  def poolMetrics(label: String, size: Int, active: Int, rate: Double, queued: Double = 0)(t: Int): Option[MetricsReading] =
    Some(MetricsReading(Seq(bulkhead.lab.model.PoolGauge(label, Some(active), Some(size), Some(rate * t), Some(queued))),
      Map("2xx" -> rate * t), Some(17), Some(16384), None, None, None, None, Map.empty))
