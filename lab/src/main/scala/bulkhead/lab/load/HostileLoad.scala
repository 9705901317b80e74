package bulkhead.lab.load

import bulkhead.lab.record.RequestOutcome

import java.io.{EOFException, IOException}
import java.net.{InetSocketAddress, Socket}
import java.util.concurrent.ConcurrentHashMap
import scala.jdk.CollectionConverters.*

/**
 * Clients that misbehave on purpose (the faults suite's hostile clients), each kind in a file of its own, on real
 * sockets to 127.0.0.1. Each records its requests in a [[RequestLog]] under its name, as the well-behaved users do,
 * bounded in time and count; `stop` ends it and closes every connection it still holds.
 */
trait HostileLoad:
  /** Connections it opened (or holds, for the kinds that hold them). */
  def connections: Int
  /** Ends the load: every client stops and its connection closes (a request without an answer is abandoned). */
  def stop(): Unit

private[load] object HostileLoad:
  def connect(port: Int, readTimeoutMs: Int, receiveBuffer: Option[Int] = None): Socket =
    val s = Socket()
    receiveBuffer.foreach(s.setReceiveBufferSize)
    s.setTcpNoDelay(true)
    s.setSoTimeout(readTimeoutMs)
    s.connect(InetSocketAddress("127.0.0.1", port), 5000)
    s

  /** What an I/O failure before an answer means for the request. */
  def failed(e: IOException, stopping: Boolean): RequestOutcome =
    if stopping then RequestOutcome.Abandoned
    else e match
      case _: java.net.SocketTimeoutException => RequestOutcome.Timeout
      case _: EOFException => RequestOutcome.Closed
      case _: java.net.ConnectException => RequestOutcome.Connect
      case _ => RequestOutcome.Reset

  /** The sockets a load holds, closed together. */
  final class Sockets:
    private val open = ConcurrentHashMap.newKeySet[Socket]()
    def add(s: Socket): Socket =
      open.add(s)
      s
    def remove(s: Socket): Unit =
      open.remove(s)
      try s.close() catch case _: IOException => ()
    def closeAll(): Unit = open.asScala.toSeq.foreach(remove)
    def size: Int = open.size
