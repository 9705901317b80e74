package bulkhead.lab.sample

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * A process's outbound TCP connections by remote address (`127.0.0.1:5432` -> 10), from /proc: its socket
 * descriptors matched to the kernel's TCP table. Outbound: established, from a local port the process does not listen
 * on. What names the peer a thread waits for in a socket read (a thread dump gives no address).
 */
object OutboundConnections:
  private val Established = "01"
  private val Listening = "0A"

  /** One line of /proc/net/tcp or tcp6, read. */
  final case class Entry(localPort: Int, remote: String, state: String, inode: Long)

  def of(pid: Long): Map[String, Int] =
    Try {
      val inodes = socketInodes(pid)
      if inodes.isEmpty then Map.empty[String, Int]
      else
        val mine = Seq("tcp", "tcp6").flatMap(f => read(Path.of(s"/proc/$pid/net/$f"))).filter(e => inodes(e.inode))
        outbound(mine)
    }.getOrElse(Map.empty)

  /** The established connections whose local port is not a listening one, counted by remote address. */
  def outbound(entries: Seq[Entry]): Map[String, Int] =
    val listening = entries.filter(_.state == Listening).map(_.localPort).toSet
    entries.filter(e => e.state == Established && !listening(e.localPort)).groupMapReduce(_.remote)(_ => 1)(_ + _)

  private def socketInodes(pid: Long): Set[Long] =
    val dir = Path.of(s"/proc/$pid/fd")
    scala.util.Using(Files.list(dir))(_.iterator().asScala.flatMap(fd => Try(Files.readSymbolicLink(fd).toString).toOption)
      .collect { case s if s.startsWith("socket:[") => s.drop(8).stripSuffix("]").toLong }.toSet).getOrElse(Set.empty)

  private def read(file: Path): Seq[Entry] =
    if !Files.isReadable(file) then Nil
    else Files.readAllLines(file).asScala.toSeq.drop(1).flatMap(parse)

  /** `0: 0100007F:1F90 0100007F:C4A2 01 ... inode`: local, remote, state, and the inode (10th column). */
  def parse(line: String): Option[Entry] =
    val cols = line.trim.split("\\s+")
    Try(Entry(Integer.parseInt(cols(1).split(':')(1), 16), address(cols(2)), cols(3), cols(9).toLong)).toOption

  /** `0100007F:1F90` -> `127.0.0.1:8080`; an IPv6 address's IPv4-mapped form is read as IPv4, any other as hex. */
  def address(hex: String): String =
    val Array(ip, port) = hex.split(':')
    val p = Integer.parseInt(port, 16)
    val v4 = if ip.length == 8 then Some(ip) else Option.when(ip.length == 32 && ip.startsWith("0000000000000000FFFF0000"))(ip.drop(24))
    v4.fold(s"[$ip]:$p") { h =>
      val bytes = h.grouped(2).map(Integer.parseInt(_, 16)).toSeq.reverse
      s"${bytes.mkString(".")}:$p"
    }
