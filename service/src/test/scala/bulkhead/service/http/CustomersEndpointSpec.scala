package bulkhead.service.http

import bulkhead.service.enrichment.{CustomerLookup, CustomerOutcome, EnrichedCustomer, Loyalty}
import bulkhead.service.metrics.ServiceMetrics
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.model.{ContentTypes, HttpResponse, StatusCodes}
import org.apache.pekko.http.scaladsl.model.headers.`Retry-After`
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*
import scala.concurrent.{Await, Future}

class CustomersEndpointSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val system = ActorSystem("customers-endpoint")
  override def afterAll(): Unit = Await.result(system.terminate(), 10.seconds)

  private def body(r: HttpResponse): String = r.entity match
    case s: org.apache.pekko.http.scaladsl.model.HttpEntity.Strict => s.data.utf8String
    case other => fail(s"not a strict entity: $other")

  "CustomersEndpoint.responseOf" should "give each outcome its status and JSON, absent loyalty fields left out" in {
    val found = CustomersEndpoint.responseOf(CustomerOutcome.Found(EnrichedCustomer(7, "Ada", "smb", "JP",
      Loyalty(available = true, Some(259L), Some("gold"), None))))
    found.status shouldBe StatusCodes.OK
    found.entity.contentType shouldBe ContentTypes.`application/json`
    body(found) shouldBe
      """{"id":7,"name":"Ada","segment":"smb","country":"JP","loyalty":{"available":true,"points":259,"tier":"gold"}}"""
    Seq(CustomerOutcome.BadId("b") -> 400, CustomerOutcome.NotFound("n") -> 404,
      CustomerOutcome.ThirdPartyTimeout("t") -> 504, CustomerOutcome.ThirdPartyFailed("f") -> 502,
      CustomerOutcome.Unavailable("u", 2.seconds) -> 503).foreach { (outcome, status) =>
      val r = CustomersEndpoint.responseOf(outcome)
      r.status.intValue shouldBe status
      body(r) should startWith(s"""{"error":"${r.status.reason}","detail":""")
    }
    CustomersEndpoint.responseOf(CustomerOutcome.Unavailable("u", 2.seconds)).header[`Retry-After`].map(_.value) shouldBe
      Some("2")
  }

  "A lookup that fails" should "answer the JSON 500, never a stack trace, and be timed like every answer" in {
    val metrics = ServiceMetrics()
    val broken = new CustomerLookup:
      def lookup(rawId: String): Future[CustomerOutcome] = Future.failed(IllegalStateException("a bug in the pipeline"))
    val r = Await.result(CustomersEndpoint(broken, metrics, system.log).respond("1"), 5.seconds)
    r.status shouldBe StatusCodes.InternalServerError
    body(r) should not include "IllegalStateException"
    metrics.registry.find("http.server.requests").tags("route", "customers", "status", "500").timer().count() shouldBe 1
  }
