package bulkhead.lab.sample

import bulkhead.lab.process.Stack

import scala.concurrent.duration.*

/**
 * The one sampler of a served process, for every lab command: a thread dump (any JVM, through the attach API), /proc
 * (the process and its children, the machine) and, when the server has one, a scrape of /metrics. `threadDumps` is off
 * for a process that is not a JVM (nginx).
 */
final class ServiceSampler(pid: Long, metricsUrl: Option[String], threadDumps: Boolean = true):
  /** The last thread dump's error, if the last one failed (a starved or exiting JVM). */
  @volatile var lastDumpError: Option[String] = None

  def sample(second: Double): Sample =
    // A starved service (blocking on its default dispatcher) may not answer: do not wait long for it.
    val metrics = metricsUrl.flatMap(u => Stack.get(u, 2.seconds).toOption.map(MetricsReading.parse))
    val pools =
      if !threadDumps then Nil
      else ThreadSampler.sample(pid) match
        case Right(p) =>
          lastDumpError = None
          p
        case Left(e) =>
          lastDumpError = Some(e)
          Nil
    val proc = ProcessThreads.read(pid)
    val machine = CpuUsage.machineBusy()
    Sample(second, pools, proc.map(_.threads), proc.map(_.residentMb), CpuUsage.treeSeconds(pid),
      machine.map(_._1), machine.map(_._2), metrics)
