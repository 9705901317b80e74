package bulkhead.transport

import java.nio.ByteBuffer
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger

/**
 * Direct buffers that writes copy their bytes into, shared by the streams of a group of loops, as Pekko's TCP layer
 * and Netty write through pooled direct buffers. A heap buffer handed to `SocketChannel.write` is copied by the JDK
 * into a temporary direct buffer that it caches per thread, as large as the largest write that thread made and with
 * no bound unless `jdk.nio.maxCachedBufferSize` is set: the writes here run on the dispatcher's threads, so every one
 * of them would keep the largest answer it ever wrote. A buffer is held only for one `write` call (what the socket
 * does not take stays in the stream's own bytes), so the pool needs about one buffer per writing thread; it keeps at
 * most `maxIdle` and lets the others go.
 */
private[transport] final class WriteBuffers(val bufferBytes: Int, maxIdle: Int):
  require(bufferBytes >= 1024, s"a write buffer must be at least 1024 bytes, not $bufferBytes")
  private val idle = ConcurrentLinkedQueue[ByteBuffer]()
  private val idleCount = AtomicInteger()

  /** A cleared buffer of [[bufferBytes]]: give it back with [[release]]. */
  def acquire(): ByteBuffer =
    val buffer = idle.poll()
    if buffer == null then ByteBuffer.allocateDirect(bufferBytes)
    else
      idleCount.decrementAndGet()
      buffer.clear()
      buffer

  /** Returns `buffer` to the pool, or drops it when the pool holds `maxIdle` already. */
  def release(buffer: ByteBuffer): Unit =
    if idleCount.incrementAndGet() <= maxIdle then idle.offer(buffer)
    else idleCount.decrementAndGet()

  /** Buffers the pool holds now. */
  def idleBuffers: Int = idleCount.get
