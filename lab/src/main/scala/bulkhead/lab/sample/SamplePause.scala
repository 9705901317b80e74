package bulkhead.lab.sample

/**
 * How long one sample stopped the JVM it sampled: the safepoints that began and ended while its thread dump ran, and
 * the JFR commands of its virtual-thread recording when it has one (HotSpot's perf counters, read just before and
 * just after: a collection that fell in the same window counts too, so it is an upper bound), or over JMX, where no
 * counter is read, the safepoint operations the JVM's log of VM operations shows since the dump call began
 * ([[VmOperations]], to the millisecond), else the dump call's whole time (an upper bound that includes the
 * transfer). `how` names which.
 * Handshakes (a JSON dump stops each thread in turn rather than all at once) are not counted.
 */
final case class SamplePause(ms: Double, safepoints: Long, how: String)

object SamplePause:
  val BySafepoints = "safepoints"
  val ByVmOperations = "VM operations log"
  val ByCallTime = "call time"

  /** The pause between two readings of the perf counters. */
  def between(before: Safepoints, after: Safepoints): SamplePause =
    SamplePause((after.totalMs - before.totalMs).max(0), (after.count - before.count).max(0), BySafepoints)
