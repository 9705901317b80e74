package bulkhead.lab.record

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class RequestOutcomeSpec extends AnyFlatSpec with Matchers:

  "A request outcome" should "read its label back, and refuse one that is neither a status nor a reason, naming it" in {
    val all = Seq(RequestOutcome.Status(200), RequestOutcome.Status(504), RequestOutcome.Timeout,
      RequestOutcome.Closed, RequestOutcome.Reset, RequestOutcome.Connect, RequestOutcome.Abandoned)
    all.foreach(o => RequestOutcome.parse(o.label) shouldBe Right(o))
    RequestOutcome.parse("error:meteor").left.toOption.get should include("'error:meteor'")
    RequestOutcome.parse("42").left.toOption.get should include("'42'")
  }

  it should "count 2xx as OK and a status as answered, a reason as neither" in {
    RequestOutcome.Status(204).ok shouldBe true
    RequestOutcome.Status(503).ok shouldBe false
    RequestOutcome.Status(503).answered shouldBe true
    RequestOutcome.Reset.answered shouldBe false
    RequestOutcome.Reset.ok shouldBe false
  }

  it should "sort as its labels do, as the fault records list them" in {
    Seq(RequestOutcome.Timeout, RequestOutcome.Status(503), RequestOutcome.Status(200)).sorted shouldBe
      Seq(RequestOutcome.Status(200), RequestOutcome.Status(503), RequestOutcome.Timeout)
  }
