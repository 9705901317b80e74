package bulkhead.lab.process

import java.security.cert.X509Certificate
import javax.net.ssl.{SSLContext, TrustManager, X509TrustManager}

/**
 * TLS that takes whatever certificate a server shows: for a server the user says is theirs and self-signed
 * (`--insecure`), never by default. The load's requests and the scrapes of the service's meters use it alike.
 */
object AnyCertificate:
  lazy val context: SSLContext =
    val trustAll = new X509TrustManager:
      def checkClientTrusted(chain: Array[X509Certificate], authType: String): Unit = ()
      def checkServerTrusted(chain: Array[X509Certificate], authType: String): Unit = ()
      def getAcceptedIssuers: Array[X509Certificate] = Array.empty
    val tls = SSLContext.getInstance("TLS")
    tls.init(null, Array[TrustManager](trustAll), null)
    tls
