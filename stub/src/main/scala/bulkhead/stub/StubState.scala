package bulkhead.stub

import java.util.concurrent.atomic.AtomicReference

/** The stub's behaviour now: changed at run time through the admin endpoint, read by every request. */
final class StubState(initialLatency: Latency, initialFaults: FaultPlan):
  private val latencyRef = AtomicReference(initialLatency)
  private val faultsRef = AtomicReference(initialFaults)

  def latency: Latency = latencyRef.get
  def faults: FaultPlan = faultsRef.get
  def setLatency(l: Latency): Unit = latencyRef.set(l)
  def setFaults(f: FaultPlan): Unit = faultsRef.set(f)
  def describe: String = s"""{"latency":"${latency.describe}","faults":"${faults.describe}"}"""
