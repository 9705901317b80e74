package bulkhead.lab.diagnose

import bulkhead.lab.record.RunRecord

/** A fault run and its checks. */
final case class FaultRunChecks(record: RunRecord, checks: Seq[Check]):
  def passed: Boolean = checks.forall(_.passed)

/**
 * The verdicts of the fault runs among a run directory's records (`lab faults`, `lab cluster-faults`), read from the
 * records alone: each fault run's checks (a node killed by [[NodeFaultVerdict]], any other fault by [[FaultVerdict]]
 * against what its service retained before its first fault), the suite-wide checks of each service (by its SOAP mode,
 * its faults in the order they ran), the overload ramps', and each undersized pool's ([[GoodputVerdict]]).
 */
final case class FaultsVerdict(runs: Seq[FaultRunChecks], suites: Seq[(String, Seq[Check])],
    ramps: Seq[FaultRunChecks], undersized: Seq[FaultRunChecks] = Nil):
  def passed: Boolean = runs.forall(_.passed) && suites.forall(_._2.forall(_.passed)) && ramps.forall(_.passed) &&
    undersized.forall(_.passed)
  def isEmpty: Boolean = runs.isEmpty && ramps.isEmpty && undersized.isEmpty

object FaultsVerdict:
  def of(records: Seq[RunRecord]): FaultsVerdict =
    // In the order they ran: a service's first fault holds its baseline.
    val faults = records.filter(_.fault.isDefined).sortBy(_.info.startedAt)
    val (killed, matrix) = faults.partition(_.fault.exists(_.nodeKill.isDefined))
    val modes = matrix.map(FaultVerdict.timeline(_).mode).distinct
    val byMode = matrix.groupBy(FaultVerdict.timeline(_).mode)
    val baselines = byMode.view.mapValues(rs => FaultVerdict.timeline(rs.head).before).toMap
    val runs = faults.map { r =>
      if killed.contains(r) then FaultRunChecks(r, NodeFaultVerdict.checks(r))
      else FaultRunChecks(r, FaultVerdict.checks(r, baselines(FaultVerdict.timeline(r).mode)))
    }
    FaultsVerdict(runs, modes.map(m => m -> FaultVerdict.suiteChecks(byMode(m).map(FaultVerdict.timeline))),
      records.filter(_.overload.isDefined).sortBy(_.info.startedAt)
        .map(r => FaultRunChecks(r, OverloadVerdict.checks(r.overload.get))),
      records.filter(_.goodput.isDefined).sortBy(_.info.startedAt)
        .map(r => FaultRunChecks(r, GoodputVerdict.checks(r.goodput.get))))
