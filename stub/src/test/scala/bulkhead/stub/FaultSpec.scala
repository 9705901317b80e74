package bulkhead.stub

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class FaultSpec extends AnyFlatSpec with Matchers:

  "Fault.parse" should "read every fault by its key, and refuse an unknown one listing the keys" in {
    Fault.values.foreach(f => Fault.parse(f.key) shouldBe Right(f))
    Fault.parse("server-error") shouldBe Right(Fault.ServerError)
    val refused = Fault.parse("meteor").left.toOption.get
    refused should include("'meteor'")
    Fault.values.foreach(f => refused should include(f.key))
  }

  "FaultPlan.parse" should "read kind=rate entries, trimmed, blank entries skipped, and write them back as entries" in {
    val plan = FaultPlan.parse(Seq(" reset = 0.25", "", "server-error=0.5")).fold(e => fail(e), identity)
    plan shouldBe FaultPlan(Map(Fault.Reset -> 0.25, Fault.ServerError -> 0.5))
    plan.entries shouldBe Seq("server-error=0.5", "reset=0.25")
    plan.describe shouldBe "server-error=0.5,reset=0.25"
    FaultPlan.parse(plan.entries) shouldBe Right(plan)
    FaultPlan.parse(Nil) shouldBe Right(FaultPlan.None)
    FaultPlan.None.describe shouldBe "none"
    FaultPlan.parse(Seq("trickle=1", "reset=0")).map(_.rates.values.sum) shouldBe Right(1.0)
  }

  it should "refuse an unknown kind, a rate outside 0..1, a malformed entry and rates above 1 in all, quoting them" in {
    FaultPlan.parse(Seq("meteor=0.5")).left.toOption.get should include("'meteor'")
    for entry <- Seq("reset=2", "reset=-0.1", "reset=often", "reset=") do
      withClue(entry)(FaultPlan.parse(Seq(entry)).left.toOption.get should include(s"'$entry'"))
    for entry <- Seq("reset", "reset=0.1=0.2") do
      withClue(entry)(FaultPlan.parse(Seq(entry)).left.toOption.get should include(s"bad fault '$entry'"))
    FaultPlan.parse(Seq("reset=0.6", "trickle=0.6")).left.toOption.get should include("more than 1")
  }

  "A plan" should "draw nothing when empty, its one fault at rate 1, and never a fault at rate 0" in {
    Seq.fill(200)(FaultPlan.None.draw()).flatten shouldBe empty
    Seq.fill(200)(FaultPlan(Map(Fault.Xxe -> 1.0)).draw()).distinct shouldBe Seq(Some(Fault.Xxe))
    Seq.fill(200)(FaultPlan(Map(Fault.Xxe -> 0.0, Fault.Reset -> 1.0)).draw()).distinct shouldBe Seq(Some(Fault.Reset))
  }
