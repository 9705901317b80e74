package bulkhead.lab.run

import bulkhead.lab.sample.{ProcessSampler, TargetDeath}

import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.duration.*

/**
 * Watches the sampled processes while a load runs, between samples: the first that ends ([[ProcessSampler.death]]: its
 * process gone, or its JMX connection lost) is recorded and `onDeath` is called once (the measuring loop stops the
 * load: nothing measured after a death is the service's). `second` gives the run's second.
 */
final class TargetWatch(samplers: Seq[ProcessSampler], second: () => Double, onDeath: TargetDeath => Unit,
    every: FiniteDuration = TargetWatch.Every):
  private val seen = AtomicReference[Option[TargetDeath]](None)
  @volatile private var running = true
  private val thread = Thread(() =>
    while running && seen.get.isEmpty do
      samplers.iterator.flatMap(_.death(second())).nextOption().foreach { d =>
        seen.set(Some(d))
        onDeath(d)
      }
      if seen.get.isEmpty then Thread.sleep(every.toMillis)
  , "lab-target-watch")
  thread.setDaemon(true)
  thread.start()

  /** The death seen so far. */
  def death: Option[TargetDeath] = seen.get

  /** Stops watching; a death seen by then stays recorded. */
  def stop(): Unit =
    running = false
    thread.join(TargetWatch.StopWait.toMillis)

object TargetWatch:
  /** How often it looks: /proc for a pid, a call for a JMX connection. */
  val Every: FiniteDuration = 250.millis
  val StopWait: FiniteDuration = 5.seconds
