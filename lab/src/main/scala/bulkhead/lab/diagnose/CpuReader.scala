package bulkhead.lab.diagnose

import bulkhead.lab.model.Resource

/**
 * The CPU as a resource: cores / machine CPU per answer. Only when the machine is busy (CpuCredible) and the service
 * itself uses a material share of it (ServiceCpuShare of the cores): below the first, fixed costs (the sampler's
 * thread dumps, the JIT, idle timers) dominate the CPU per answer and the cap would be far below what the CPU can
 * do; without the second, what keeps the machine busy is other work (a build beside the run), which slows the
 * service but is not what its throughput is made of. No setting fixes it: a cheaper request, or more cores.
 */
object CpuReader extends ResourceReader:
  val resource: Resource = Resource.Cpu
  val unit = "cores"

  def read(run: RunView): Seq[Measured] =
    val cores = run.cores.toDouble
    val serviceCores = run.serviceMicros.map(_ * run.answeredRate / 1e6)
    run.machineBusy.filter(_ >= Diagnosis.CpuCredible)
      .filter(_ => serviceCores.forall(_ >= Diagnosis.ServiceCpuShare * cores)).map { share =>
        Measured(Resource.Cpu, "", cores, share * cores, run.answeredRate, share >= Diagnosis.CpuSaturated, None,
          f"the machine ${share * 100}%.0f%% busy (${run.cores} cores shared by the service and the load generator)" +
            run.serviceMicros.fold("")(us => f"; the service's CPU ${us}%.0f us per request"))
      }.toSeq

  def fix(m: Measured, run: RunView): Option[Fix] = None
