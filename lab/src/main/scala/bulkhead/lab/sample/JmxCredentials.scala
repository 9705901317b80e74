package bulkhead.lab.sample

import java.nio.file.attribute.PosixFilePermission
import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/**
 * A JMX agent's user and password (`-Dcom.sun.management.jmxremote.authenticate=true`), read from a file, never from
 * the command line (where `ps` shows it to every user). `toString` never shows the password.
 */
final class JmxCredentials(val user: String, password: String):
  /** What [[javax.management.remote.JMXConnector.CREDENTIALS]] takes. */
  def asEnvironment: Array[String] = Array(user, password)
  override def toString: String = s"JmxCredentials($user, ***)"

object JmxCredentials:
  /**
   * `user password` on one line (the first line that is not blank or a `#` comment; the password is the rest of the
   * line). The file must be readable by its owner only, as the JDK's agent requires of its own password file.
   */
  def read(file: Path): Either[String, JmxCredentials] =
    if !Files.isRegularFile(file) then Left(s"no credentials file $file")
    else
      val open = Set(PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ)
      val permissions = scala.util.Try(Files.getPosixFilePermissions(file).asScala.toSet).getOrElse(Set.empty)
      if permissions.exists(open) then
        Left(s"$file is readable by other users: it holds a password (chmod 600 $file)")
      else
        val line = Files.readAllLines(file).asScala.map(_.trim).find(l => l.nonEmpty && !l.startsWith("#"))
        line.map(_.split("\\s+", 2)) match
          case Some(Array(user, password)) if password.trim.nonEmpty => Right(JmxCredentials(user, password.trim))
          case _ => Left(s"$file must hold `user password` on one line")
