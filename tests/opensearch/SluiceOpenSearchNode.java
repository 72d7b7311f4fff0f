// SPDX-License-Identifier: GPL-2.0-or-later
// A one-node OpenSearch for Sluice's tests (opensearch-node.sh): the
// server as Maven ships it (org.opensearch:opensearch), run in this JVM
// with its HTTP transport (Netty4Plugin) as a classpath plugin, on a
// loopback port, its files under a directory, without the security plugin.
// Usage: java -cp ... SluiceOpenSearchNode HOME HTTP_PORT TRANSPORT_PORT
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.List;

import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

public class SluiceOpenSearchNode extends Node
{
  SluiceOpenSearchNode(Settings settings, List<Class<? extends Plugin>> plugins)
  {
    super(InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), null,
                                                      () -> "sluice-test"),
          plugins, true);
  }

  public static void main(String[] args) throws Exception
  {
    Path home = Paths.get(args[0]).toAbsolutePath();
    Settings settings = Settings.builder()
      .put("cluster.name", "sluice-test")
      .put("node.name", "sluice-test")
      .put("path.home", home.toString())
      .put("path.data", home.resolve("data").toString())
      .put("path.logs", home.resolve("logs").toString())
      .put("network.host", "127.0.0.1")
      .put("http.port", args[1])
      .put("transport.port", args[2])
      .put("discovery.type", "single-node")
      .put("cluster.routing.allocation.disk.threshold_enabled", false)
      .put("action.auto_create_index", true)
      .build();
    Node node = new SluiceOpenSearchNode(settings, List.of(Netty4Plugin.class));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try
        {
          node.close();
        }
      catch (Exception e)
        {
          // stopping anyway
        }
    }));
    node.start();
    System.out.println("sluice-opensearch-node started");
    Thread.currentThread().join();
  }
}
