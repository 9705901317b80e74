package bulkhead.lab

/** `./bulkhead lab ...` and `./bulkhead demo`. */
object LabMain:
  def main(args: Array[String]): Unit = args.toList match
    case "demo" :: rest =>
      // Until the seed suite lands (issue 4), the demo is the two benchmarks, short: the seeds' pool, one-thread-per-
      // request, non-blocking and enrichment figures side by side.
      val full = rest.contains("--full")
      val short = if full then Seq("--duration", "30", "--rounds", "3") else Seq("--duration", "8", "--warmup", "3",
        "--rounds", "1")
      Bench.main(("work" +: short).toArray)
      Bench.main(("enrichment" +: short).toArray)
    case "bench" :: rest => Bench.main(rest.toArray)
    case _ =>
      System.err.println(
        """usage: ./bulkhead lab bench <work|enrichment> [--duration S] [--warmup S] [--rounds N] [--only a,b]
          |       ./bulkhead demo [--full]
          |The scenario runner, thread sampler and diagnosis (lab run / threads / analyze) are not built yet.""".stripMargin)
      sys.exit(2)
