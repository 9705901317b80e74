package bulkhead.service.http

import com.github.plokhotnyuk.jsoniter_scala.core.*
import org.apache.pekko.http.scaladsl.marshalling.{Marshaller, ToEntityMarshaller}
import org.apache.pekko.http.scaladsl.model.{ContentTypes, HttpEntity}

/** Marshals any type with a jsoniter-scala codec as `application/json`. */
object JsonSupport:
  given jsonMarshaller[A](using codec: JsonValueCodec[A]): ToEntityMarshaller[A] =
    Marshaller.withFixedContentType(ContentTypes.`application/json`) { a =>
      HttpEntity(ContentTypes.`application/json`, writeToArray(a))
    }
