package bulkhead.lab.load

import bulkhead.lab.process.AnyCertificate

import java.io.IOException
import java.net.{InetSocketAddress, Socket}
import javax.net.ssl.{SSLHandshakeException, SSLSocket, SSLSocketFactory}

/**
 * TLS for a load over `https://`: the JDK's trust (its CA certificates, the host name checked) unless the load is
 * `insecure`, which takes any certificate (a test host's self-signed one). wrk never checks a certificate, so a
 * checked load first makes one handshake with each host here, and a certificate the JDK does not trust stops the run
 * before any load, saying how to go on.
 */
object Tls:
  /** Sockets for a load's requests: checked ones, or for `insecure` ones that take any certificate. */
  def factory(insecure: Boolean): SSLSocketFactory =
    if !insecure then SSLSocketFactory.getDefault.asInstanceOf[SSLSocketFactory]
    else AnyCertificate.context.getSocketFactory

  /** `socket`, connected, wrapped in TLS to `host` and its handshake done; the host's name is checked unless trusted. */
  def wrap(factory: SSLSocketFactory, socket: Socket, host: String, port: Int, checkName: Boolean): SSLSocket =
    val tls = factory.createSocket(socket, host, port, true).asInstanceOf[SSLSocket]
    if checkName then
      val params = tls.getSSLParameters
      params.setEndpointIdentificationAlgorithm("HTTPS")
      tls.setSSLParameters(params)
    tls.startHandshake()
    tls

  /** Each `https://` host of the load trusted by the JDK, or why not; nothing to check for `insecure` or plain HTTP. */
  def check(requests: Requests): Either[String, Unit] =
    if requests.insecure then Right(())
    else
      requests.targets.filter(_.https).distinctBy(_.origin).map(handshake).collectFirst { case Left(e) => e }
        .toLeft(())

  private def handshake(r: Request): Either[String, Unit] =
    val socket = Socket()
    try
      socket.connect(InetSocketAddress(r.host, r.port), 5000)
      socket.setSoTimeout(10000)
      wrap(factory(insecure = false), socket, r.host, r.port, checkName = true).close()
      Right(())
    catch
      case e: SSLHandshakeException =>
        Left(s"the certificate of ${r.origin} is not trusted (${e.getMessage}): give --insecure to load a server " +
          "whose certificate is self-signed")
      case e: IOException => Left(s"cannot reach ${r.origin} for its TLS handshake: $e")
    finally socket.close()
