package bulkhead.service.cluster

import bulkhead.service.enrichment.{CustomerOutcome, CustomerRoutee}
import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.{CodecMakerConfig, JsonCodecMaker}
import org.apache.pekko.actor.ExtendedActorSystem
import org.apache.pekko.actor.typed.ActorRefResolver
import org.apache.pekko.actor.typed.scaladsl.adapter.*
import org.apache.pekko.serialization.SerializerWithStringManifest

import java.io.NotSerializableException
import scala.concurrent.duration.*

/**
 * The messages that cross nodes: a lookup sent to a routee on another node, and the outcome it sends back. Encoded as
 * JSON by jsoniter-scala, the library that already writes the service's answers: its codecs are derived at compile
 * time from the domain types (no reflection, no annotation on them), and a few hundred bytes of JSON per call are
 * nothing next to a 1 s third-party call. Bound to these types in reference.conf; Java serialization stays off.
 */
final class CustomerMessageSerializer(system: ExtendedActorSystem) extends SerializerWithStringManifest:
  import CustomerMessageSerializer.{*, given}

  // Lazy: serializers are built while the actor system starts, before its typed extensions can be.
  private lazy val resolver = ActorRefResolver(system.toTyped)

  def identifier: Int = Identifier

  def manifest(message: AnyRef): String = message match
    case _: CustomerRoutee.Lookup => LookupManifest
    case _: CustomerOutcome => OutcomeManifest
    case other => throw IllegalArgumentException(s"cannot serialize ${other.getClass.getName}")

  def toBinary(message: AnyRef): Array[Byte] = message match
    case CustomerRoutee.Lookup(id, replyTo) => writeToArray(LookupWire(id, resolver.toSerializationFormat(replyTo)))
    case outcome: CustomerOutcome => writeToArray(outcome)
    case other => throw IllegalArgumentException(s"cannot serialize ${other.getClass.getName}")

  def fromBinary(bytes: Array[Byte], manifest: String): AnyRef = manifest match
    case LookupManifest =>
      val wire = readFromArray[LookupWire](bytes)
      CustomerRoutee.Lookup(wire.id, resolver.resolveActorRef[CustomerOutcome](wire.replyTo))
    case OutcomeManifest => readFromArray[CustomerOutcome](bytes)
    case other => throw NotSerializableException(s"unknown manifest '$other' for ${getClass.getName}")

object CustomerMessageSerializer:
  /** Pekko reserves 0..40 for its own serializers; this value names this format on the wire, never another one. */
  val Identifier: Int = 7_004

  private val LookupManifest = "lookup"
  private val OutcomeManifest = "outcome"

  /** A lookup on the wire: the reply-to actor as its full address (`pekko://system@host:port/...`). */
  private final case class LookupWire(id: Int, replyTo: String)

  private given JsonValueCodec[LookupWire] = JsonCodecMaker.make

  /** Durations (Retry-After) travel as milliseconds. */
  private given JsonValueCodec[FiniteDuration] = new JsonValueCodec[FiniteDuration]:
    def decodeValue(in: JsonReader, default: FiniteDuration): FiniteDuration = in.readLong().millis
    def encodeValue(x: FiniteDuration, out: JsonWriter): Unit = out.writeVal(x.toMillis)
    def nullValue: FiniteDuration = null

  private given JsonValueCodec[CustomerOutcome] = JsonCodecMaker.make(CodecMakerConfig.withTransientNone(true))
