package bulkhead.service.http

import bulkhead.service.enrichment.EnrichedCustomer
import bulkhead.service.work.WorkDone
import com.github.plokhotnyuk.jsoniter_scala.core.JsonValueCodec
import com.github.plokhotnyuk.jsoniter_scala.macros.{CodecMakerConfig, JsonCodecMaker}

/** The JSON shapes of the answers, kept at the HTTP edge: the domain types know nothing of JSON. */
object JsonCodecs:
  /** An absent loyalty field is left out of the answer rather than written as `null`. */
  given JsonValueCodec[EnrichedCustomer] = JsonCodecMaker.make(CodecMakerConfig.withTransientNone(true))

  given JsonValueCodec[WorkDone] = JsonCodecMaker.make
