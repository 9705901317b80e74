package bulkhead.lab.run

/**
 * The progress of a long command made of steps of estimated length, as a person watching it wants it: at each step
 * `[3/8, 2.1 min elapsed, ~4.0 min left; this step ~40 s]`, at its end `done in 42 s`. What is left is the estimate
 * of the steps not done, scaled by how long the finished steps took against their own estimates (a slow machine is
 * slow for every step).
 *
 * @param estimates seconds each step is expected to take, in order
 * @param clock     nanoseconds, monotonic (a test passes its own)
 */
final class Progress(estimates: Seq[Double], clock: () => Long = () => System.nanoTime()):
  require(estimates.nonEmpty && estimates.forall(_ >= 0), s"step estimates must be >= 0 seconds, were $estimates")
  private val started = clock()
  private var current = -1 // the step running, or the last one finished
  private var running = false
  private var stepStarted = started
  private var finishedEstimate = 0.0
  private var finishedActual = 0.0

  private def seconds(from: Long) = (clock() - from) / 1e9
  def elapsed: Double = seconds(started)

  /** How much slower (> 1) or faster the finished steps ran than estimated; 1 before any finished. */
  private def pace: Double = if finishedEstimate > 0 then finishedActual / finishedEstimate else 1.0

  /** Seconds left: the current step's estimate less its time so far, then every later step's; at the pace so far. */
  def left: Double =
    val later = estimates.drop(current + 1).sum
    val now = if running then (estimates(current) - seconds(stepStarted)).max(0) else 0.0
    (later + now) * pace

  /** Starts step `i` (0-based), finishing the step before it, and returns the step's header. */
  def start(i: Int): String =
    require(i >= 0 && i < estimates.size, s"step ${i + 1} of ${estimates.size} does not exist")
    finish()
    current = i
    running = true
    stepStarted = clock()
    s"[${i + 1}/${estimates.size}, ${Progress.duration(elapsed)} elapsed, ~${Progress.duration(left)} left; " +
      s"this step ~${Progress.duration(estimates(i) * pace)}]"

  /** Ends the current step and returns `done in 42 s` (nothing if no step runs). */
  def finish(): String =
    if !running then ""
    else
      val took = seconds(stepStarted)
      finishedEstimate += estimates(current)
      finishedActual += took
      running = false
      s"done in ${Progress.duration(took)}"

  /** Where the current step stands: `step 12 s of ~40 s, ~3.1 min left in all`. */
  def status: String =
    if !running then s"${Progress.duration(elapsed)} elapsed, ~${Progress.duration(left)} left"
    else s"step ${Progress.duration(seconds(stepStarted))} of ~${Progress.duration(estimates(current) * pace)}, " +
      s"~${Progress.duration(left)} left in all"

object Progress:
  /** `42 s` below 90 seconds, else `2.1 min`. */
  def duration(seconds: Double): String =
    if seconds < 90 then f"${seconds.max(0)}%.0f s" else f"${seconds / 60}%.1f min"
