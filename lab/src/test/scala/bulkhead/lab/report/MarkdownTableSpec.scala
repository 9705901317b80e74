package bulkhead.lab.report

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class MarkdownTableSpec extends AnyFlatSpec with Matchers:

  "A Markdown table" should "write its header, the separator and one line per row" in {
    MarkdownTable(Seq("pool", "busy"), Seq(Seq("blocking-pool", "200"), Seq("work-queue", "25"))).linesIterator
      .toSeq shouldBe Seq("| pool | busy |", "| --- | --- |", "| blocking-pool | 200 |", "| work-queue | 25 |")
  }

  it should "keep a | inside a cell from breaking the table" in {
    MarkdownTable(Seq("flags"), Seq(Seq("a|b"))).linesIterator.toSeq.last shouldBe "| a/b |"
  }
