package bulkhead.lab.diagnose

import bulkhead.lab.diagnose.Measured.*
import bulkhead.lab.model.{FixKind, Resource}

/**
 * The CPU as a resource: cores / machine CPU per answer. Only when the machine is busy (CpuCredible) and the service
 * itself uses a material share of it (ServiceCpuShare of the cores): below the first, fixed costs (the sampler's
 * thread dumps, the JIT, idle timers) dominate the CPU per answer and the cap would be far below what the CPU can
 * do; without the second, what keeps the machine busy is other work (a build beside the run), which slows the
 * service but is not what its throughput is made of, unless more of the service's threads are sampled computing than
 * there are cores (they queue for a core, whoever else uses them). No setting fixes it: cheaper work where the CPU goes (the code
 * its running threads were sampled in), or more cores; more threads only share the same cores.
 */
object CpuReader extends ResourceReader:
  val resource: Resource = Resource.Cpu
  val unit = "cores"
  /** The hottest frames a fix names. */
  val TopFrames = 3

  def read(run: RunView): Seq[Measured] =
    val cores = run.cores.toDouble
    val serviceCores = run.serviceMicros.map(_ * run.answeredRate / 1e6)
    // More of the service's threads sampled on a core than there are cores: they wait for one, whatever else keeps
    // the machine busy, and the CPU is what holds the service back.
    val computing = mean(run.window.map(_.pools.filterNot(_.eventLoop).map(_.computing.values.sum).sum.toDouble))
    run.machineBusy.filter(_ >= Diagnosis.CpuCredible)
      .filter(_ => serviceCores.forall(_ >= Diagnosis.ServiceCpuShare * cores) || computing >= cores).map { share =>
        Measured(Resource.Cpu, "", cores, share * cores, run.answeredRate, share >= Diagnosis.CpuSaturated, None,
          f"the machine ${share * 100}%.0f%% busy (${run.cores} cores shared by the service and the load generator)" +
            run.serviceMicros.fold("")(us => f"; the service's CPU ${us}%.0f us per request"), readBy = Some(this))
      }.toSeq

  /** The code the service's running threads were sampled in, with each one's count, most first. */
  def hotFrames(run: RunView): Seq[(String, Int)] =
    run.window.flatMap(_.pools).flatMap(_.computing).groupMapReduce(_._1)(_._2)(_ + _).toSeq.sortBy(-_._2)

  def fix(m: Measured, run: RunView): Option[Fix] =
    val hot = hotFrames(run)
    val sampled = hot.map(_._2).sum
    val machineUs = m.size / m.cap * 1e6
    val serviceUs = run.serviceMicros.getOrElse(machineUs)
    val running = sampled.toDouble / run.window.size.max(1)
    val where = if hot.isEmpty then "no stack of a running thread of its own code was sampled (async-profiler gives " +
        "the profile)"
      else hot.take(TopFrames).map((f, n) => f"$f ${n * 100.0 / sampled}%.0f%%").mkString(", ") +
        s" of $sampled sampled stacks of running threads (thread dumps stop threads at safepoints: async-profiler " +
        "gives the exact profile)"
    val halved = hot.headOption.map { (f, n) =>
      val saved = serviceUs * n / sampled / 2
      f"; if $f cost half: ${m.size}%.0f cores / ${machineUs - saved}%.0f us = ${m.size * 1e6 / (machineUs - saved)}%.1f req/s"
    }.getOrElse("")
    val more = (run.cores * 2).max(2)
    val perCore = 1e6 / serviceUs
    val threads = if sampled == 0 then "" else f"${running}%.1f threads run on ${run.cores} busy cores: "
    Some(Fix(Nil, f"cheaper work where the CPU goes: $where; more threads will not help (${threads}more of them " +
      f"only share the same ${run.cores} cores); with $more cores of its own the service's ${serviceUs}%.0f us per " +
      f"request would serve $more x ${perCore}%.1f = ${more * perCore}%.1f req/s (`lab run --cpus $more` sizes its " +
      "pools as on such a machine)" + halved, FixKind.CheaperWork))
