package bulkhead.lab.diagnose

import bulkhead.lab.model.Resource
import bulkhead.lab.sample.Sample

/**
 * What a reader of one kind of resource is given: the measured samples of one JVM, the rate of expected answers, the
 * clients of the closed loop, the path the load asked for, whether the JVM is bulkhead's service (whose settings
 * the lab can change), the expected answers per second, the machine's cores and busy share over the load, and the
 * service's CPU per answer.
 */
final case class RunView(window: Seq[Sample], answeredRate: Double, clients: Int, path: String,
    bulkhead: Boolean = false, throughput: Double = 0, cores: Int = 1, machineBusy: Option[Double] = None,
    serviceMicros: Option[Double] = None)

/**
 * One kind of resource (a lock, a semaphore, a connection pool, an event loop...): how it is read from a run's
 * samples, the unit of its size, and the kind of fix that serves more load. The choice of the cap, the chain and the
 * verdict are the same for every kind ([[Diagnosis]]); adding a kind is one reader.
 */
trait ResourceReader:
  def resource: Resource
  /** What one unit of its size is, in a sentence (`threads`, `connections`, `permits`). */
  def unit: String
  def read(run: RunView): Seq[Measured]
  /** The fix for `m` when it caps: its kind and the sentence; flags where the lab can apply it. */
  def fix(m: Measured, run: RunView): Option[Fix]

object ResourceReader:
  /**
   * A resource's size (per node) that holds every client: one per client, spread over the nodes (the front's router
   * sends round robin), and at least one more than now.
   */
  def inFlight(m: Measured, run: RunView): Int =
    math.ceil(run.clients.toDouble / m.nodes).toInt.max(m.sizePerNode.toInt + 1)

  /** Why `n` units: the clients in flight at once, each for the measured hold. */
  def because(m: Measured, run: RunView): String =
    s"${run.clients} clients x ${Measured.fmt(m.hold)} s hold need ${run.clients} in flight"

  /**
   * The readers of resources found from what threads wait on, in the order they claim a wait: the first that claims
   * it reads it ([[WaitReader.kindOf]]). A lock's shape is the surest (a monitor or an exclusive lock, one holder); a
   * completion has no holder inside; a pool of connections is known by its holders' socket reads, any other pool by
   * its lending code; a semaphore by its class; the rest is a limit.
   */
  val FromWaits: Seq[WaitReader] = Seq(LockReader, FutureReader, ConnectionPoolReader, ObjectPoolReader,
    SemaphoreReader, LimitReader)
  /** Every reader, one per kind of resource. */
  val All: Seq[ResourceReader] = Seq(ThreadPoolReader, EventLoopReader, HostPoolReader, MaxConnectionsReader,
    CpuReader) ++ FromWaits
