package bulkhead.lab.sample

/**
 * One pool over a run's thread samples, for a JVM whose pools the lab did not configure: its size is inferred as the
 * most threads seen at once, and its busy threads are counted at each sample. A pool whose threads Jetty lends to its
 * acceptor and selector ([[PoolNames.family]]) counts them in `size`, since they come out of the same maximum, and not
 * among its `workers`, the threads that can hold a request.
 */
final case class PoolSize(pool: String, size: Int, workers: Int, busy: Seq[Int]):
  def maxBusy: Int = busy.maxOption.getOrElse(0)

object PoolSize:
  /** Every pool seen in `samples` (one `Seq[PoolSample]` per dump, in time order), sorted by label. */
  def infer(samples: Seq[Seq[PoolSample]]): Seq[PoolSize] =
    val pools = samples.flatten.map(_.pool).distinct.sorted
    pools.map { pool =>
      val members = pools.filter(p => PoolNames.family(p) == pool).toSet + pool
      val own = samples.map(_.find(_.pool == pool))
      PoolSize(pool,
        size = samples.map(_.filter(p => members(p.pool)).map(_.threads).sum).max,
        workers = own.flatten.map(_.threads).max,
        busy = own.map(_.fold(0)(_.busy)))
    }
