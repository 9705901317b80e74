<#-- META-INF/THIRD-PARTY.txt of bulkhead-lab.jar: the libraries the licence check found in what the jar ships, each
     with the licences its pom names, then what the jar bundles that is not a Maven dependency (the report's charts). -->
bulkhead-lab.jar is licensed under the Apache License, Version 2.0 (META-INF/LICENSE, META-INF/NOTICE). It bundles
these third-party libraries, each under its own licence:

<#list dependencyMap as e>
<#assign p = e.getKey()/>
  <#list e.getValue() as l>(${l}) </#list>${p.name} (${p.groupId}:${p.artifactId}:${p.version} - ${p.url!"no url defined"})
</#list>
  (MIT) uPlot 1.6.32 (https://github.com/leeoniya/uPlot) - the report's charts: report/uPlot.iife.min.js, its licence in report/uPlot-LICENSE.txt
