package bulkhead.lab.diagnose

import bulkhead.lab.diagnose.Measured.*
import bulkhead.lab.model.{FixKind, MetricsReading, Resource}
import bulkhead.lab.sample.{PoolSample, PoolSize, Sample, WaitKind}

/**
 * Thread pools of the thread dumps, each with its size (from /metrics, else the most threads seen), its occupancy
 * (threads running a task: the executor's active count when it has one, else the threads not idle in the dump) and
 * the rate through it. A pool whose busy threads mostly compute is the CPU's, not a pool that holds requests; one whose
 * busy threads mostly queue on a resource inside the JVM (a lock, a connection pool's borrow) is that resource's
 * symptom, not a cap; an event loop's pool is read by [[EventLoopReader]].
 */
object ThreadPoolReader extends ResourceReader:
  val resource: Resource = Resource.Pool
  val unit = "threads"

  def read(run: RunView): Seq[Measured] = measure(run.window, run.answeredRate).filter(_.resource == Resource.Pool)

  /** Keys of the resources found from waits in `window` (ones with holders: see [[WaitResources]]). */
  private def found(window: Seq[Sample]): Set[String] =
    WaitResources.of(RunView(window, 1, 0, "")).map(_.key).toSet

  /** The rate of a cumulative metric over a measured window (first and last sample that has it). */
  def rateIn(w: Seq[Sample])(f: MetricsReading => Option[Double]): Option[Double] =
    val points = w.flatMap(s => s.metrics.flatMap(f).map(s.second -> _))
    for (t0, v0) <- points.headOption; (t1, v1) <- points.lastOption if t1 > t0 && v1 >= v0 yield (v1 - v0) / (t1 - t0)

  def gaugeIn(w: Seq[Sample])(f: MetricsReading => Option[Double]): Seq[Double] = w.flatMap(_.metrics.flatMap(f))

  /** Every holding pool of `window`, as a pool or, when its threads run an event loop, as an event loop. */
  def measure(window: Seq[Sample], fallbackRate: Double): Seq[Measured] =
    val resources = found(window)
    def rateOf(f: MetricsReading => Option[Double]) = rateIn(window)(f)
    def gauge(f: MetricsReading => Option[Double]) = gaugeIn(window)(f)
    val metricLabels = window.flatMap(_.metrics.toSeq.flatMap(_.pools.map(_.label))).distinct
    val names = window.flatMap(_.pools.filter(_.threads > 0).map(_.pool)).distinct
    names.flatMap { name =>
      // bulkhead's gauges name a pool by its configuration path's end; a server's meters by the prefix of its threads'
      // names (Tomcat's `http-nio-8080` for its `http-nio-8080-exec-N` threads).
      val label = metricLabels.find(l => name.endsWith(l) || name.startsWith(s"$l-"))
      val seen = window.map(_.pools.find(_.pool == name))
      val busy = seen.map(_.map(_.busy.toDouble).getOrElse(0.0))
      val blocked = mean(seen.map(_.map(heldIn).getOrElse(0.0)))
      val size = label.flatMap(l => median(gauge(_.pool(l).flatMap(_.max))))
        .getOrElse(seen.flatten.map(_.threads).maxOption.getOrElse(0).toDouble)
      // bulkhead serves /metrics on its default dispatcher: the active count it reports includes the thread serving
      // the scrape, so a dispatcher of one thread always reads full (seed 004's single thread, idle in every dump);
      // there the dumps alone tell whether the thread is held.
      val readsItself = label.contains(Diagnosis.ScrapedOn) && size <= 1
      // A fork-join pool counts as active the threads that look for work: when nothing waits in its queue and the
      // dumps see fewer than half of the threads its gauge calls active out of their idle wait, the dumps are read (a
      // default dispatcher read 8 of 8 active, its queue empty and its 8 threads idle in every dump, and was named
      // the cap of a blocking pool's run). With tasks queued the gauge stands: threads parked inside the work (a
      // managed block) look idle to a dump.
      val gauged = label.filterNot(_ => readsItself).map(l => gauge(_.pool(l).flatMap(_.active))).filter(_.nonEmpty)
      val queuedTasks = label.map(l => gauge(_.pool(l).flatMap(_.queued))).filter(_.nonEmpty).map(mean)
      val active = gauged.filterNot(g => mean(busy) < mean(g) * 0.5 && queuedTasks.forall(_ < 1))
      val occupancySeries = active.getOrElse(busy)
      val occupancy = mean(occupancySeries)
      // Held, not computing: most busy threads wait in a blocking frame. With an executor's active count, the threads
      // it calls active but the dump does not see computing are held (a parked wait is not a known blocking frame).
      val computing = mean(seen.map(_.map(p => (p.busy - heldIn(p)).max(0)).getOrElse(0.0)))
      val dumpSeesHeld = mean(busy) > 0 && blocked >= mean(busy) * 0.5
      val holding = if active.isDefined then occupancy - computing >= occupancy * 0.5 else dumpSeesHeld
      // Busy threads queued on a resource inside the JVM wait for that resource, which the wait readers read.
      // Only a wait with holders is a resource: a thread parked for a result another thread hands over (a blocking
      // client waiting on its own asynchronous exchange) holds the pool's thread for the call, like a socket read.
      val queuedOnResource = mean(seen.map(_.fold(0.0)(_.waits.filter((k, _) => resources(k)).values.sum.toDouble)))
      val symptom = mean(busy) > 0 && queuedOnResource >= mean(busy) * 0.5
      // A lone named thread (a JVM's housekeeping) is not a pool; bulkhead's pools are known by their gauges. Virtual
      // threads are one per task: every one is busy, none waits for a free one, so they have no size to be full at
      // (what bounds them is a limit in front of them, whose refusals are errors).
      val virtual = seen.flatten.exists(_.virtual)
      val loop = seen.flatten.exists(_.eventLoop)
      if occupancy <= 0 || size <= 0 || !holding || symptom || virtual || (label.isEmpty && size < 2) then None
      else
        val counted = label.flatMap(l => rateOf(_.pool(l).flatMap(_.completed))).filter(_ > 0)
        val rate = counted.getOrElse(fallbackRate)
        val subject = label.getOrElse(name)
        val frame = seen.flatten.flatMap(p => p.commonSite.orElse(p.commonBusyFrame))
          .groupMapReduce(identity)(_ => 1)(_ + _).maxByOption(_._2).map(_._1).getOrElse("their work")
        val waits = seen.flatten.flatMap(_.waits).groupMapReduce(_._1)(_._2)(_ + _).maxByOption(_._2).map(_._1)
        val doing = waits.fold("")(w => s", busy threads mostly " + (if PoolSample.Terminal(w) || resources(w) then
          WaitResources.describe(w, Map.empty) else s"wait for a result another thread hands over ($w)"))
        // The pool's own meters beside the dumps' reading, by the meters' names.
        val metered = for
          l <- label
          m <- window.flatMap(_.metrics.flatMap(_.pool(l)).flatMap(_.meter)).lastOption
          g <- gauged
        yield f" ($m ${mean(g)}%.1f of ${size}%.0f" + queuedTasks.fold("")(q => f", $q%.1f queued") + ")"
        Some(Measured(if loop then Resource.EventLoop else Resource.Pool, subject, size, occupancy, rate,
          mostly(occupancySeries.map(_ >= size * Diagnosis.FullShare)), queuedTasks,
          f"${occupancy}%.1f of ${size}%.0f threads busy (in $frame), ${rate}%.1f tasks/s through it " +
            s"(${if counted.isDefined then "its executor's counter" else "every answer crosses it"})",
          frame = Some(frame), heldByGaugeOnly = active.isDefined && !dumpSeesHeld,
          chain = Seq(f"${if loop then "event loop " else ""}$subject: ${occupancy}%.1f of ${size}%.0f threads busy " +
            s"in $frame${metered.getOrElse("")}$doing")))
    }

  /**
   * A pool's busy threads not on a core: those its dump sees waiting (a sleep, a lock, a blocking socket read, which
   * a thread's state calls RUNNABLE while it holds the thread), else those not RUNNABLE.
   */
  private def heldIn(p: PoolSample): Double =
    if p.waits.nonEmpty then (p.busy - p.waits.getOrElse(WaitKind.Running.key, 0)).max(0).toDouble
    else p.blocked.toDouble

  /**
   * A Pekko or Akka dispatcher that runs the actor system's own non-blocking machinery (its HTTP streams, its actors):
   * the default or internal dispatcher, as its threads are named after its configuration path
   * (`my-system-pekko.actor.default-dispatcher-5`) or bulkhead's gauges label it.
   */
  def actorsOwn(pool: String): Boolean =
    Seq("default-dispatcher", "internal-dispatcher").exists(d => pool == d || pool.endsWith(s"actor.$d"))

  def fix(m: Measured, run: RunView): Option[Fix] =
    val n = ResourceReader.inFlight(m, run)
    val why = ResourceReader.because(m, run) + (if m.nodes == 1 then "" else s", $n on each of ${m.nodes} nodes")
    if run.bulkhead && m.subject == "blocking-pool" then
      Some(Fix(Seq("--blocking-pool-size", n.toString), s"blocking-pool of $n threads (one per in-flight request: $why)"))
    else if run.bulkhead && actorsOwn(m.subject) then
      // The default dispatcher runs the service's non-blocking machinery (its HTTP streams, its actors): blocking
      // work moves to the dedicated pool, never more dispatcher threads.
      val moved = Option.when(run.path.startsWith("/work/default"))(run.path.replaceFirst("/work/default", "/work/pool"))
      Some(Fix(Seq("--blocking-pool-size", n.toString), s"move the blocking work in ${m.frame.getOrElse("it")} off " +
        s"the default dispatcher, which runs the service's non-blocking machinery, onto the blocking-pool of $n " +
        s"threads ($why)" + moved.fold("")(p => s": $p"), FixKind.MoveOffEventLoop, moved))
    else if actorsOwn(m.subject) then
      // Any Pekko or Akka service: the seeds' first lesson, never more parallelism for the dispatcher.
      Some(Fix(Nil, s"move the blocking call in ${m.frame.getOrElse("its tasks")} off ${m.subject} to a dedicated " +
        s"dispatcher: a thread-pool-executor with fixed-pool-size $n ($why), the Future run on it " +
        "(`Future { ... }(system.dispatchers.lookup(\"my-blocking-dispatcher\"))`); more parallelism for the " +
        "dispatcher that runs the actors and the HTTP streams would only let more of them block",
        FixKind.MoveOffEventLoop))
    else if run.bulkhead && m.subject == "work-queue" then
      Some(Fix(Seq("--set", s"bulkhead.enrichment.soap.work-queue.max=$n", "--set",
        s"bulkhead.enrichment.soap.work-queue.core=$n"), s"SOAP work queue of $n threads ($why)"))
    else
      // The threads the server lends to other roles (Jetty's acceptor and selector) come out of the same maximum.
      val lent = PoolSize.infer(run.window.map(_.pools)).find(_.pool == m.subject).fold(0)(p => p.size - p.workers)
      Some(Fix(Nil, s"${setting(m.subject)} >= ${n + lent} ($why${if lent > 0 then s", plus $lent it lends to " +
        "acceptors and selectors" else ""})", setting = Some(setting(m.subject)), value = Some(n + lent)))

  /** The setting that sizes a pool of a server the lab did not write, by the pool's name. */
  private def setting(pool: String): String =
    if pool.startsWith("qtp") then s"Jetty's QueuedThreadPool maxThreads ($pool)"
    else if pool.contains("-exec") then s"Tomcat's maxThreads ($pool)"
    else if pool.startsWith("XNIO") && pool.contains("task") then s"Undertow's worker threads ($pool)"
    else if pool.contains("dispatcher") then
      s"the dispatcher's fixed-pool-size (a thread-pool-executor) or parallelism-max (a fork-join-executor) of $pool"
    else s"the maximum size of pool $pool"
