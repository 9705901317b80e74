package bulkhead.service.cluster

import bulkhead.service.enrichment.{CustomerOutcome, CustomerRoutee, EnrichedCustomer, Loyalty}
import com.typesafe.config.ConfigFactory
import org.apache.pekko.actor.ExtendedActorSystem
import org.apache.pekko.actor.testkit.typed.scaladsl.ActorTestKit
import org.apache.pekko.actor.typed.scaladsl.adapter.*
import org.apache.pekko.serialization.{SerializationExtension, Serializers}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.io.NotSerializableException
import scala.concurrent.duration.*

class CustomerMessageSerializerSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  // The service's own configuration: the bindings under test are those of its reference.conf.
  private val testKit = ActorTestKit("serializer-spec", ConfigFactory.load())
  private val serialization = SerializationExtension(testKit.system.toClassic)

  override def afterAll(): Unit = testKit.shutdownTestKit()

  /** Through Pekko's serialization, as Artery does: the bound serializer, its manifest, bytes and back. */
  private def roundTrip(message: AnyRef): AnyRef =
    val serializer = serialization.findSerializerFor(message)
    serializer shouldBe a[CustomerMessageSerializer]
    val bytes = serialization.serialize(message).get
    serialization.deserialize(bytes, serializer.identifier, Serializers.manifestFor(serializer, message)).get

  "CustomerMessageSerializer" should "carry a lookup with the actor to reply to" in {
    val probe = testKit.createTestProbe[CustomerOutcome]()
    val back = roundTrip(CustomerRoutee.Lookup(42, probe.ref))
    back shouldBe CustomerRoutee.Lookup(42, probe.ref)
    // The reply-to still reaches the probe once it went through bytes.
    val answer = CustomerOutcome.NotFound("customer 42 is unknown to the third party")
    back.asInstanceOf[CustomerRoutee.Lookup].replyTo ! answer
    probe.expectMessage(answer)
  }

  it should "carry every outcome unchanged, a customer with or without its loyalty profile" in {
    val outcomes = Seq(
      CustomerOutcome.Found(EnrichedCustomer(7, "Ken Turing", "public", "IN",
        Loyalty(available = true, Some(120L), Some("gold"), Some("2026-11-01")))),
      CustomerOutcome.Found(EnrichedCustomer(8, "Ada Hopper", "retail", "FR", Loyalty.Unavailable)),
      CustomerOutcome.Found(EnrichedCustomer(9, "Édith Ørsted", "retail", "DK", Loyalty.Empty)),
      CustomerOutcome.BadId("customer id must be positive"),
      CustomerOutcome.NotFound("customer 100001 is unknown to the third party"),
      CustomerOutcome.ThirdPartyTimeout("no answer in 5 s"),
      CustomerOutcome.ThirdPartyFailed("malformed answer: \"quoted\" \n newline"),
      CustomerOutcome.Unavailable("work queue full", 3.seconds),
      CustomerOutcome.Unavailable("circuit open", 1500.millis))
    for outcome <- outcomes do roundTrip(outcome) shouldBe outcome
  }

  it should "refuse bytes under a manifest it does not know, rather than guess" in {
    val serializer = CustomerMessageSerializer(testKit.system.toClassic.asInstanceOf[ExtendedActorSystem])
    a[NotSerializableException] should be thrownBy serializer.fromBinary(Array[Byte](1, 2), "something-else")
  }

  it should "leave Java serialization off" in {
    testKit.system.settings.config.getBoolean("pekko.actor.allow-java-serialization") shouldBe false
  }
