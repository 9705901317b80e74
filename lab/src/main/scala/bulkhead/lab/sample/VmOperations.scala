package bulkhead.lab.sample

/**
 * HotSpot's log of VM operations (`jcmd <pid> VM.events log=vmops`, or the `vmEvents` operation of the
 * `DiagnosticCommand` MBean over JMX): each operation's start and end, in seconds since the JVM started, to the
 * millisecond. What a JVM reached over JMX tells of its safepoints, where no perf counter can be read.
 */
object VmOperations:
  private val Line = """^Event: (\d+\.\d+) Executing safepoint VM operation: (\S+)( done)?.*$""".r

  /**
   * The safepoint operations that started at `fromSeconds` or later (since the JVM started): their time in all, in
   * milliseconds, and how many; None when the log shows none (or is not a VM operations log).
   */
  def safepointsSince(log: String, fromSeconds: Double): Option[(Double, Int)] =
    var open = Map.empty[String, Double]
    var total = 0.0
    var count = 0
    log.linesIterator.foreach {
      case Line(at, op, done) =>
        val t = at.toDouble
        if done == null then open += op -> t
        else open.get(op).foreach { began =>
          if began >= fromSeconds then
            total += (t - began) * 1000
            count += 1
          open -= op
        }
      case _ => ()
    }
    Option.when(count > 0)((total, count))
