package bulkhead.lab.report

import bulkhead.lab.sample.{PoolSample, ThreadDump, WaitGraph}

/** Text renderings of thread samples: the seeds' per-pool counts over time, and a TDA-like reading of one dump. */
object ThreadTable:
  /** One row per pool, one column per sample: `busy/threads` and states, as seed 004's jstackSeries printed counts. */
  def render(samples: Seq[Seq[PoolSample]]): String =
    val pools = samples.flatMap(_.map(_.pool)).distinct.sorted
    val width = (pools.map(_.length) :+ 4).max
    def cell(x: PoolSample) =
      val states = x.states.toSeq.sortBy(_._1).map((st, n) => s"${Abbrev.getOrElse(st, st.take(1))}$n").mkString(" ")
      s"${x.busy}/${x.threads} $states"
    val cells = pools.map(p => samples.map(s => s.find(_.pool == p).map(cell).getOrElse("-")))
    val col = (cells.flatten.map(_.length) :+ 9).max
    val header = s"%-${width}s".format("pool") + samples.indices.map(i => s"  %-${col}s".format(s"sample ${i + 1}")).mkString
    val rows = pools.zip(cells).map((p, cs) => s"%-${width}s".format(p) + cs.map(c => s"  %-${col}s".format(c)).mkString)
    (header +: rows).mkString("\n") +
      "\n(busy/threads: busy = not parked waiting for a task; states: R runnable, T timed-waiting, W waiting, B blocked)"

  private val Abbrev = Map("RUNNABLE" -> "R", "TIMED_WAITING" -> "T", "WAITING" -> "W", "BLOCKED" -> "B")

  /** Pools, lock owners, what threads queue on and, unless a caller reports them itself, the JVM's deadlocks. */
  def analysis(dump: ThreadDump, deadlocks: Boolean = true): String =
    val samples = PoolSample.of(dump)
    val pools = samples.map { p =>
      val states = p.states.toSeq.sortBy(-_._2).map((s, n) => s"$s $n").mkString(", ")
      val frames = p.busyFrames.toSeq.sortBy(-_._2).take(3).map((f, n) => s"      $n in $f").mkString("\n")
      s"${p.pool}: ${p.threads} threads, ${p.busy} busy ($states)" + (if frames.nonEmpty then "\n" + frames else "")
    }
    val locks = dump.threads.filter(_.blockedOn.isDefined).map { t =>
      val owner = dump.threads.find(o => t.blockedOn.exists(b => o.lockedMonitors.exists(_.startsWith(b.takeWhile(_ != ' ')))))
      s"  ${t.name} waits for ${t.blockedOn.get}, held by ${owner.map(_.name).getOrElse("?")}"
    }
    val resources = WaitGraph.of(dump).sortBy(-_.waiters).map { r =>
      val waiters = r.waiterPools.toSeq.sortBy(-_._2).map((p, n) => s"$n of $p").mkString(", ")
      val doing = r.holderWaits.toSeq.sortBy(-_._2).map((w, n) => s"$n $w").mkString(", ")
      s"  ${r.blocker} at ${r.site}: ${r.waiters} waiting ($waiters), ${r.holders} holding" +
        r.holderFrame.fold("")(f => s" in $f") + (if doing.isEmpty then "" else s" ($doing)")
    }
    val deadlocked = if dump.deadlocks.isEmpty then "deadlocks: none reported by the JVM"
      else "DEADLOCK between:\n" + dump.deadlocks.map("  " + _).mkString("\n")
    (s"${dump.threads.size} threads in ${samples.size} pools" +: pools) .mkString("\n") +
      (if locks.nonEmpty then "\nblocked on monitors:\n" + locks.mkString("\n") else "\nblocked on monitors: none") +
      (if resources.nonEmpty then "\nwhat threads queue on (holders found in the same dump):\n" + resources.mkString("\n")
        else "\nwhat threads queue on: nothing") +
      (if deadlocks then "\n" + deadlocked else "")
