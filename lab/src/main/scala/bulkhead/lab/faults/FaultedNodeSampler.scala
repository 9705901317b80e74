package bulkhead.lab.faults

import bulkhead.lab.sample.{ProcessSampler, Sample}

import java.util.concurrent.{CompletableFuture, Executors, TimeUnit}

/**
 * Samples the faulted node of a cluster across its fault: its first process, then each new one it is told of; its
 * samples read nothing while it is down (its process is gone) and its new process's once it is back. While it is
 * paused (SIGSTOP) it is read from /proc alone: a thread dump or a scrape would wait on it until SIGCONT, and every
 * node's sample of that round with it; a sample already under way when the pause begins is given up for /proc's.
 * Its end is the fault, not a death that ends the run.
 */
final class FaultedNodeSampler(first: ProcessSampler) extends ProcessSampler:
  @volatile private var current = first
  @volatile private var paused = false
  // A sample stuck on a stopped JVM holds its thread until SIGCONT: each sample on a thread of its own.
  private val threads = Executors.newCachedThreadPool(task =>
    val t = Thread(task, "lab-faulted-node-sampler")
    t.setDaemon(true)
    t)

  @volatile private var followed = Vector(first)

  def follow(next: ProcessSampler): Unit =
    followed :+= next
    current = next
  def pause(on: Boolean): Unit = paused = on

  def sample(second: Double): Sample =
    if paused then current.process(second)
    else
      val sampler = current
      val full = CompletableFuture.supplyAsync(() => sampler.sample(second), threads)
      while !full.isDone && !paused do
        try full.get(50, TimeUnit.MILLISECONDS)
        catch case _: java.util.concurrent.TimeoutException => ()
      if full.isDone then full.join() else sampler.process(second)

  def process(second: Double): Sample = current.process(second)
  def lastDumpError: Option[String] = current.lastDumpError
  override def source = current.source
  /** The faulted node's end is the fault itself: never a death that ends the run. */
  override def death(second: Double): Option[bulkhead.lab.sample.TargetDeath] = None
  override def finish(samples: Seq[Sample]): Seq[Sample] =
    followed.dropRight(1).foreach(_.finish(Nil))
    current.finish(samples)
