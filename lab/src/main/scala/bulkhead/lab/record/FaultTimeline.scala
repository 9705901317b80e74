package bulkhead.lab.record

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.sample.{Retained, Sample}

/** Requests of one user group that ended in one outcome. */
final case class OutcomeCount(group: String, outcome: RequestOutcome, count: Int)

/** The requests of a fault run that ended in one second (since the load started), by outcome. */
final case class OutcomeSecond(second: Int, outcomes: Map[RequestOutcome, Int])

/** A node of a cluster, by its cluster address, and what it retained before the fault and after the run. */
final case class NodeRetained(node: String, before: Retained, after: Retained)

/**
 * Something that happened to a node of a cluster during a run, `second` on the run's request log clock: a signal sent
 * (`SIGKILL`, `SIGSTOP`, `SIGCONT`), `partitioned`, `healed`, `exited N` (seen by the lab), `starting again`, `serving`.
 */
final case class NodeEvent(second: Double, node: String, what: String)

/**
 * A node faulted under load (`lab cluster-faults`: killed, paused, partitioned or restarted in a loop; the timeline's
 * `fault` says which): the node, by its cluster address, what each node that stayed up other than the front retained
 * (the front's is the timeline's own), and what happened to every node, in order.
 */
final case class NodeKill(killed: String, others: Seq[NodeRetained], events: Seq[NodeEvent] = Nil)

/**
 * The fault of a fault run and what the run's figures and samples do not hold: the phases (seconds since the load
 * started, on the request log's clock, which starts with the samples' within a millisecond: the fault injected, cleared,
 * the load stopped), every request by user group and outcome and by second, OK answers per 100 ms (for the recovery
 * time), what the service retained before the fault and after the run, the 503s without Retry-After, and whether every
 * user ended. The service's gauges second by second are the run's samples. `mode` is the service's SOAP mode: the
 * faults of one mode run one after the other on one service, whose first run's `before` is their baseline. `hung`: a
 * dependency hung for a long hold, with what it and the service counted around the run. `watch` is the service
 * watched from outside (/health, descriptors, the log's size), `hostile` the hostile clients of a fault that runs
 * them, whose requests are theirs alone (`totals` holds the well-behaved users').
 */
final case class FaultTimeline(fault: String, mode: String, expect: FaultExpectation, injectAt: Double,
    clearAt: Double, endAt: Double, totals: Seq[OutcomeCount], seconds: Seq[OutcomeSecond], okPerTenth: Seq[Int],
    before: Retained, after: Retained, missingRetryAfter: Int, usersEnded: Boolean, nodeKill: Option[NodeKill] = None,
    hung: Option[HungDependency] = None, watch: Option[ServiceWatch] = None, hostile: Seq[HostileClients] = Nil):
  /** Answers by status, over every user group. */
  def statuses: Map[Int, Int] = totals.flatMap(c => c.outcome.status.map(_ -> c.count)).groupMapReduce(_._1)(_._2)(_ + _)

/**
 * One second of a fault run as its verdict reads it: the requests that ended in it, by outcome, and the service's
 * sample taken in it (its gauges at the second's start; None when no sample fell in it).
 */
final case class FaultSecond(second: Int, outcomes: Map[RequestOutcome, Int], sample: Option[Sample]):
  def ok: Int = outcomes.collect { case (k, n) if k.ok => n }.sum
  def metrics: Option[MetricsReading] = sample.flatMap(_.metrics)
  /** The circuit breaker's state: 0 closed, 1 half-open, 2 open. */
  def breaker: Option[Double] = metrics.flatMap(_.circuitState)
  /** The breaker's openings since the service started. */
  def breakerOpenings: Option[Double] = metrics.flatMap(_.circuitOpenings)
  /** Answers degraded since the service started (loyalty unavailable). */
  def degraded: Option[Double] = metrics.flatMap(_.loyaltyUnavailable)
  /** Platform threads (/proc). */
  def threads: Option[Int] = sample.flatMap(_.platformThreads)
  def heapMb: Option[Double] = metrics.flatMap(_.heapUsedMb)

object FaultTimeline:
  /** Aggregates a fault run's request log and what the service retained around it. */
  def of(fault: String, mode: String, expect: FaultExpectation, injectAt: Double, clearAt: Double, endAt: Double,
      log: Seq[RequestLog.Entry], before: Retained, after: Retained, usersEnded: Boolean,
      watch: Option[ServiceWatch] = None, hostile: Seq[HostileClients] = Nil): FaultTimeline =
    val totals = log.groupMapReduce(e => (e.group, e.outcome))(_ => 1)(_ + _).toSeq.sortBy(_._1)
      .map { case ((group, outcome), n) => OutcomeCount(group, outcome, n) }
    val lastSecond = math.ceil(endAt).toInt
    val bySecond = log.groupBy(_.endSecond.toInt)
    val seconds = (0 until lastSecond).map(s =>
      OutcomeSecond(s, bySecond.getOrElse(s, Nil).groupMapReduce(_.outcome)(_ => 1)(_ + _)))
    val tenths = okPerTenth(log, lastSecond * 10 + 1)
    val missing = log.count(e => e.outcome == RequestOutcome.Status(503) && e.retryAfter.isEmpty)
    FaultTimeline(fault, mode, expect, injectAt, clearAt, endAt, totals, seconds, tenths, before, after, missing,
      usersEnded, watch = watch, hostile = hostile)

  /**
   * OK answers by the tenth of a second they ended in, `size` tenths from the load's start, the last counting every
   * later one too. The recorded run's and the fault driver's live count of its log alike, for one recovery rule.
   */
  def okPerTenth(log: Seq[RequestLog.Entry], size: Int): Seq[Int] =
    val tenths = Array.fill(size)(0)
    log.filter(_.outcome.ok).foreach(e => tenths((e.endSecond * 10).toInt.min(size - 1)) += 1)
    tenths.toSeq

  /** The samples keyed by the whole second they were taken in; of two in one second (a late round), the last. */
  def bySecond(samples: Seq[Sample]): Map[Int, Sample] = samples.map(s => s.second.toInt -> s).toMap

  /** Each second of the timeline, from the load's start to its end, with its sample. */
  def seconds(t: FaultTimeline, samples: Seq[Sample]): Seq[FaultSecond] =
    val taken = bySecond(samples)
    t.seconds.map(s => FaultSecond(s.second, s.outcomes, taken.get(s.second)))
