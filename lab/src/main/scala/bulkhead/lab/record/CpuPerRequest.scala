package bulkhead.lab.record

import bulkhead.lab.sample.Sample

/**
 * CPU per request: the CPU time (user + system, from /proc) a process tree spent on a run, over the answers the run
 * got, in microseconds. Far less noisy than requests per second on a machine the load generator shares: a server that
 * gets fewer cores in one round answers fewer requests, but each costs it the same.
 *
 * A run recorded with readings just before and just after its load (wrk's closed loop) is counted between them: every
 * CPU second of the run (its connection storm included) over every answer. A ramp, or a run recorded without those
 * readings, is counted as rates over the samples of its measured phase: CPU seconds per second over answers per
 * second.
 */
object CpuPerRequest:
  /** The served process and its children (nginx: master and worker). */
  def service(r: RunRecord): Option[Double] = of(r, _.cpuSeconds)

  /** The served JVM's JIT compiler threads (part of [[service]]): high while the JIT is still compiling. */
  def jit(r: RunRecord): Option[Double] = of(r, _.jitCpuSeconds)

  /** The lab's own process (its sampling, its load drivers but wrk), per answer of the service. */
  def lab(r: RunRecord): Option[Double] = of(r, _.labCpuSeconds)

  /**
   * The served JVM's time at safepoints (every thread stopped: garbage collections and the thread dumps the sampler
   * takes) over the run, in ms per second of run, from its perf counters read before and after the load.
   */
  def safepointMsPerSecond(r: RunRecord): Option[Double] =
    for
      before <- r.beforeLoad
      after <- r.afterLoad
      s0 <- before.safepoints
      s1 <- after.safepoints
      if after.second > before.second
    yield (s1.totalMs - s0.totalMs) / (after.second - before.second)

  /** Each process the service depends on (the stub, redis-server), per answer of the service. */
  def dependencies(r: RunRecord): Map[String, Double] =
    val names = (r.beforeLoad.toSeq ++ r.samples).flatMap(_.dependencyCpuSeconds.keys).distinct
    names.flatMap(n => of(r, _.dependencyCpuSeconds.get(n)).map(n -> _)).toMap

  def of(r: RunRecord, cpu: Sample => Option[Double]): Option[Double] =
    val answered = r.load.answers.answered
    val bracketed =
      for
        before <- r.beforeLoad if r.measuredFrom == 0 && answered > 0
        after <- r.afterLoad
        c0 <- cpu(before)
        c1 <- cpu(after)
      yield (c1 - c0) / answered * 1e6
    bracketed.orElse(overSamples(r.measuredSamples, cpu, r.load.answeredPerSecond))

  /** CPU seconds per second between the first and the last sample that have them, over answers per second. */
  def overSamples(samples: Seq[Sample], cpu: Sample => Option[Double], answeredPerSecond: Double): Option[Double] =
    val points = samples.flatMap(s => cpu(s).map(s.second -> _))
    for
      (s0, c0) <- points.headOption
      (s1, c1) <- points.lastOption
      if s1 > s0 && answeredPerSecond > 0
    yield (c1 - c0) / (s1 - s0) / answeredPerSecond * 1e6
