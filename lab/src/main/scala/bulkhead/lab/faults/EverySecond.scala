package bulkhead.lab.faults

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean
import scala.jdk.CollectionConverters.*

/**
 * A reading taken once a second on a daemon thread while a fault runs, kept by the second since the run's start (the
 * request log's `t0Nanos`) so that it lines up with the answers of that second.
 */
final class EverySecond[A] private (thread: Thread, running: AtomicBoolean, readings: ConcurrentHashMap[Int, A]):
  /** Ends the readings (one under way finishes, within 5 s) and returns them by second (again if called again). */
  def stop(): Map[Int, A] =
    running.set(false)
    thread.join(5000)
    readings.asScala.toMap

object EverySecond:
  def start[A](name: String, t0Nanos: Long)(read: Int => A): EverySecond[A] =
    val readings = ConcurrentHashMap[Int, A]()
    val running = AtomicBoolean(true)
    val thread = Thread(() =>
      while running.get do
        val second = ((System.nanoTime() - t0Nanos) / 1_000_000_000L).toInt
        readings.put(second, read(second))
        // At the next whole second of the run, however long the reading took.
        val wait = (t0Nanos + (second + 1) * 1_000_000_000L - System.nanoTime()) / 1_000_000L
        if wait > 0 then Thread.sleep(wait)
    , name)
    thread.setDaemon(true)
    thread.start()
    EverySecond(thread, running, readings)
