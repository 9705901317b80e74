package bulkhead.service.soap

import org.apache.pekko.actor.testkit.typed.scaladsl.ActorTestKit
import org.apache.pekko.stream.scaladsl.{Sink, Source}
import org.apache.pekko.util.ByteString
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.util.concurrent.TimeoutException
import scala.concurrent.duration.*
import scala.concurrent.{Await, Promise}

@Slow
class OpenEndedBodySpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val testKit = ActorTestKit()
  override def afterAll(): Unit = testKit.shutdownTestKit()
  private given org.apache.pekko.actor.typed.ActorSystem[?] = testKit.system

  private val body = ByteString("<Envelope/>")

  "OpenEndedBody" should "send its body at once and complete only when its end comes" in {
    val end = Promise[Unit]()
    val seen = Promise[ByteString]()
    val done = Source.fromGraph(OpenEndedBody(body, end.future)).runWith(Sink.foreach(b => seen.trySuccess(b)))
    Await.result(seen.future, 3.seconds) shouldBe body
    Thread.sleep(200)
    done.isCompleted shouldBe false
    end.success(())
    Await.result(done, 3.seconds)
  }

  it should "fail with its end's failure, so that the pool cancels the call" in {
    val end = Promise[Unit]()
    val done = Source.fromGraph(OpenEndedBody(body, end.future)).runWith(Sink.seq)
    end.failure(TimeoutException("deadline"))
    intercept[TimeoutException](Await.result(done, 3.seconds)).getMessage shouldBe "deadline"
  }

  it should "still send the whole body when its end came before the first pull" in {
    val done = Source.fromGraph(OpenEndedBody(body, concurrent.Future.unit)).runWith(Sink.seq)
    Await.result(done, 3.seconds) shouldBe Seq(body)
  }
