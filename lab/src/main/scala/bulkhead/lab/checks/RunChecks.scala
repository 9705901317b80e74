package bulkhead.lab.checks

import bulkhead.lab.record.RunRecord

/** A fault run and its checks. */
final case class FaultRunChecks(record: RunRecord, checks: Seq[Check]):
  def passed: Boolean = checks.forall(_.passed)

/**
 * The checks of the fault runs among a run directory's records (`lab faults`, `lab cluster-faults`), read from the
 * records alone: each fault run's checks (a node killed by [[NodeFaultChecks]], any other fault by [[FaultChecks]]
 * against what its service retained before its first fault), the suite-wide checks of each service (by its SOAP mode,
 * its faults in the order they ran), the overload ramps', and each undersized pool's ([[GoodputChecks]]).
 */
final case class RunChecks(runs: Seq[FaultRunChecks], suites: Seq[(String, Seq[Check])],
    ramps: Seq[FaultRunChecks], undersized: Seq[FaultRunChecks] = Nil):
  def passed: Boolean = runs.forall(_.passed) && suites.forall(_._2.forall(_.passed)) && ramps.forall(_.passed) &&
    undersized.forall(_.passed)
  def isEmpty: Boolean = runs.isEmpty && ramps.isEmpty && undersized.isEmpty

object RunChecks:
  def of(records: Seq[RunRecord]): RunChecks =
    // In the order they ran: a service's first fault holds its baseline.
    val faults = records.filter(_.fault.isDefined).sortBy(_.info.startedAt)
    val (killed, matrix) = faults.partition(_.fault.exists(_.nodeKill.isDefined))
    val modes = matrix.map(FaultChecks.timeline(_).mode).distinct
    val byMode = matrix.groupBy(FaultChecks.timeline(_).mode)
    val baselines = byMode.view.mapValues(rs => FaultChecks.timeline(rs.head).before).toMap
    val runs = faults.map { r =>
      if killed.contains(r) then FaultRunChecks(r, NodeFaultChecks.checks(r))
      else FaultRunChecks(r, FaultChecks.checks(r, baselines(FaultChecks.timeline(r).mode)))
    }
    RunChecks(runs, modes.map(m => m -> FaultChecks.suiteChecks(byMode(m).map(FaultChecks.timeline))),
      records.filter(_.overload.isDefined).sortBy(_.info.startedAt)
        .map(r => FaultRunChecks(r, OverloadChecks.checks(r.overload.get))),
      records.filter(_.goodput.isDefined).sortBy(_.info.startedAt)
        .map(r => FaultRunChecks(r, GoodputChecks.checks(r.goodput.get))))
