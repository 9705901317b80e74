package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, Resource}
import bulkhead.lab.sample.EventLoops

/**
 * An event loop's threads held by blocking code (seed 001's lesson: blocking work on the threads that run the
 * non-blocking machinery). Loops / hold caps it like a pool, but the fix moves the frame that blocks to a bounded pool
 * (the framework's own way); more loops never fix it.
 */
object EventLoopReader extends ResourceReader:
  val resource: Resource = Resource.EventLoop
  val unit = "loop threads"

  def read(run: RunView): Seq[Measured] =
    ThreadPoolReader.measure(run.window, run.answeredRate).filter(_.resource == Resource.EventLoop)

  def fix(m: Measured, run: RunView): Option[Fix] =
    val frames = run.window.flatMap(_.pools.filter(_.pool == m.subject)).flatMap(p => p.runs ++ p.sites.keys).distinct
    val n = ResourceReader.inFlight(m, run)
    Some(Fix(Nil, s"move the blocking call in ${m.frame.getOrElse("the handler")} off the event loop ${m.subject} " +
      s"onto a bounded pool of $n threads (${ResourceReader.because(m, run)}): ${EventLoops.offload(frames)}; more " +
      "loops would not help (each blocked loop also stalls every connection it serves)", FixKind.MoveOffEventLoop))
