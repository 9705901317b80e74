package bulkhead.service.config

import com.typesafe.config.{Config, ConfigException}

import scala.concurrent.duration.{Duration, FiniteDuration, MILLISECONDS}

/** Typed reads of one configuration, each failing with the key named (`ConfigException.BadValue`). */
final class SettingsReader(config: Config):

  def int(key: String, min: Int, max: Int = Int.MaxValue): Int =
    val v = config.getInt(key)
    check(key, v >= min && v <= max, s"must be between $min and $max, was $v")
    v

  def double(key: String, min: Double): Double =
    val v = config.getDouble(key)
    check(key, v >= min, s"must be at least $min, was $v")
    v

  def duration(key: String, min: FiniteDuration): FiniteDuration =
    val v = Duration(config.getDuration(key).toMillis, MILLISECONDS)
    check(key, v >= min, s"must be at least $min, was $v")
    v

  /** A size in bytes (HOCON's `64KiB` or a plain number). */
  def bytes(key: String, min: Long, max: Long): Long =
    val v: Long = config.getBytes(key)
    check(key, v >= min && v <= max, s"must be between $min and $max bytes, was $v")
    v

  def string(key: String): String = config.getString(key)

  def nonEmpty(key: String): String =
    val v = config.getString(key)
    check(key, v.trim.nonEmpty, "must not be empty")
    v

  /** The choice whose `name` is the key's value, e.g. an enum case by its configuration key. */
  def oneOf[A](key: String, choices: Seq[A])(name: A => String): A =
    val v = config.getString(key)
    choices.find(name(_) == v).getOrElse(
      throw new ConfigException.BadValue(key, s"must be one of ${choices.map(name).sorted.mkString(", ")}, was '$v'"))

  def boolean(key: String): Boolean = config.getBoolean(key)

  def check(key: String, ok: Boolean, message: => String): Unit =
    if !ok then throw new ConfigException.BadValue(key, message)
