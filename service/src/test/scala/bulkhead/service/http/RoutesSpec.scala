package bulkhead.service.http

import bulkhead.service.config.ServiceSettings
import bulkhead.service.enrichment.{CustomerLookup, CustomerOutcome, EnrichedCustomer, Loyalty}
import bulkhead.service.metrics.ServiceMetrics
import bulkhead.service.testkit.TestService
import bulkhead.service.work.WorkRunner
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.actor.typed.scaladsl.adapter.*
import org.apache.pekko.http.scaladsl.model.{ContentTypes, HttpMethods, HttpRequest, HttpResponse, StatusCodes}
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.http.scaladsl.testkit.ScalatestRouteTest
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.{Await, Future}
import scala.concurrent.duration.*

class RoutesSpec extends AnyFlatSpec with Matchers with ScalatestRouteTest:
  private given typed: ActorSystem[Nothing] = system.toTyped.asInstanceOf[ActorSystem[Nothing]]

  /** Answers by id so that each outcome of the pipeline can be asked for. */
  private object ScriptedLookup extends CustomerLookup:
    private val customer = EnrichedCustomer(1, "Ada", "retail", "ES", Loyalty.Unavailable)
    def lookup(rawId: String): Future[CustomerOutcome] = Future.successful(rawId match
      case "1" => CustomerOutcome.Found(customer)
      case "2" => CustomerOutcome.NotFound("unknown")
      case "3" => CustomerOutcome.ThirdPartyTimeout("slow")
      case "4" => CustomerOutcome.ThirdPartyFailed("fault")
      case "5" => CustomerOutcome.Unavailable("overloaded", 2.seconds)
      case other => CustomerOutcome.BadId(s"bad id $other"))

  private val metrics = ServiceMetrics()
  private val all =
    Routes(WorkRunner(typed, bulkhead.service.dispatch.TimerPool(bulkhead.service.dispatch.Pools.Timer),
      ServiceSettings(TestService.config(Map("bulkhead.service.work.allow-default-dispatcher" -> true))).work),
      ScriptedLookup, metrics, 5, () => true, system.log)
  private val routes = all.route

  "GET /hello" should "answer 200 OK in plain text" in {
    Get("/hello") ~> routes ~> check {
      status shouldBe StatusCodes.OK
      responseAs[String] shouldBe "OK"
    }
  }

  "GET /work/{mode}" should "run work where its mode says: blocking pool, default dispatcher, or a timer" in {
    val where = Seq("pool" -> "bulkhead.dispatch.blocking-pool", "default" -> "pekko.actor.default-dispatcher",
      "async" -> "\"thread\":\"timer\"")
    for (mode, thread) <- where do
      Get(s"/work/$mode?ms=1") ~> routes ~> check {
        withClue(mode) {
          status shouldBe StatusCodes.OK
          responseAs[String] should include(thread)
        }
      }
  }

  it should "run on a virtual thread on JDK 21+ and answer 501 on older JDKs" in {
    Get("/work/virtual?ms=1") ~> routes ~> check {
      if Runtime.version().feature() >= 21 then
        status shouldBe StatusCodes.OK
        responseAs[String] should include("virtual-pool-virtual-thread")
      else
        status shouldBe StatusCodes.NotImplemented
        contentType shouldBe ContentTypes.`application/json`
    }
  }

  it should "answer 400 with a JSON error for an unknown mode" in {
    Get("/work/turbo") ~> routes ~> check {
      status shouldBe StatusCodes.BadRequest
      contentType shouldBe ContentTypes.`application/json`
      responseAs[String] should include("unknown work mode 'turbo'")
    }
  }

  it should "answer 400 with a JSON error for ms out of range or not a number" in {
    for bad <- Seq("-1", "60001", "abc", "1e3", "") do
      Get(s"/work/pool?ms=$bad") ~> routes ~> check {
        withClue(s"ms=$bad: ") {
          status shouldBe StatusCodes.BadRequest
          contentType shouldBe ContentTypes.`application/json`
          responseAs[String] should startWith("{\"error\":\"Bad Request\"")
        }
      }
  }

  "The fast path" should "answer /hello, /work/{mode} and /customers/{id} exactly as the routing tree does, and leave the rest to it" in {
    val tree = Route.toFunction(routes)
    def answer(f: Future[HttpResponse]): (Int, Option[String], String) =
      val r = Await.result(f, 5.seconds)
      val body = Await.result(r.entity.toStrict(5.seconds), 5.seconds).data.utf8String
      (r.status.intValue, Option(r.entity.contentType).map(_.toString), body)
    val served = Seq("/hello", "/work/async?ms=1", "/work/async", "/work/turbo", "/work/pool?ms=abc",
      "/work/pool?ms=70000", "/work/async?ms=1&other=x", "/customers/1", "/customers/2", "/customers/5", "/customers/x")
    for path <- served do
      withClue(path) {
        val request = HttpRequest(uri = path)
        all.fastPath.isDefinedAt(request) shouldBe true
        answer(all.fastPath(request)) shouldBe answer(tree(request))
      }
    val left = Seq(HttpRequest(uri = "/work/async/x"), HttpRequest(uri = "/work/"), HttpRequest(uri = "/hello?x=1"),
      HttpRequest(HttpMethods.POST, uri = "/work/async"), HttpRequest(uri = "/customers/1/x"),
      HttpRequest(HttpMethods.POST, uri = "/customers/1"))
    for request <- left do withClue(request.uri)(all.fastPath.isDefinedAt(request) shouldBe false)
  }

  it should "time /work answers in /metrics with their status" in {
    val before = metrics.registry.find("http.server.requests").tags("route", "work", "status", "400").timer()
    val counted = if before == null then 0L else before.count()
    Await.result(all.fastPath(HttpRequest(uri = "/work/turbo")), 5.seconds).status shouldBe StatusCodes.BadRequest
    metrics.registry.find("http.server.requests").tags("route", "work", "status", "400").timer().count() shouldBe
      counted + 1
  }

  it should "count /hello's fast path in http.server.requests like every route" in {
    def hellos = Option(metrics.registry.find("http.server.requests").tags("route", "hello", "status", "200").timer())
      .map(_.count()).getOrElse(0L)
    val counted = hellos
    (1 to 3).foreach(_ => Await.result(all.fastPath(HttpRequest(uri = "/hello")), 5.seconds).status shouldBe StatusCodes.OK)
    hellos shouldBe counted + 3
  }

  "An unknown path or method" should "get a JSON error, not Pekko's plain text" in {
    Get("/nothing") ~> routes ~> check {
      status shouldBe StatusCodes.NotFound
      contentType shouldBe ContentTypes.`application/json`
    }
    Post("/hello") ~> routes ~> check {
      status shouldBe StatusCodes.MethodNotAllowed
      contentType shouldBe ContentTypes.`application/json`
    }
  }

  "GET /customers/{id}" should "map every outcome of the pipeline to its designed status" in {
    val expected = Seq("1" -> 200, "2" -> 404, "3" -> 504, "4" -> 502, "5" -> 503, "x" -> 400)
    for (id, code) <- expected do
      Get(s"/customers/$id") ~> routes ~> check {
        withClue(s"id $id: ") {
          status.intValue shouldBe code
          contentType shouldBe ContentTypes.`application/json`
        }
      }
    Get("/customers/5") ~> routes ~> check {
      header("Retry-After").map(_.value) shouldBe Some("2")
    }
    Await.result(all.fastPath(HttpRequest(uri = "/customers/5")), 5.seconds).header[
      org.apache.pekko.http.scaladsl.model.headers.`Retry-After`].map(_.value) shouldBe Some("2")
  }

  it should "time each answer in /metrics with its status, on the fast path and in the routing tree" in {
    def count(status: String) = Option(metrics.registry.find("http.server.requests").tags("route", "customers",
      "status", status).timer()).map(_.count()).getOrElse(0L)
    val (ok, notFound) = (count("200"), count("404"))
    Await.result(all.fastPath(HttpRequest(uri = "/customers/1")), 5.seconds).status shouldBe StatusCodes.OK
    Get("/customers/2") ~> routes ~> check(status shouldBe StatusCodes.NotFound)
    (count("200"), count("404")) shouldBe (ok + 1, notFound + 1)
  }

  "GET /metrics" should "publish the pools and the JVM thread count in Prometheus text" in {
    Get("/metrics") ~> routes ~> check {
      val text = responseAs[String]
      text should include("jvm_threads_live_threads")
    }
  }
