package bulkhead.lab.record

/**
 * A run's place on a capacity curve (`lab capacity`): the curve (the scenario or process it measured), the step (0:
 * the closed loop that read the Little's-law cap; 1..N: the open-loop steps) and the arrival rate offered there
 * (req/s; none for the closed loop).
 */
final case class CapacityStep(curve: String, index: Int, offered: Option[Double]):
  def closedLoop: Boolean = index == 0
