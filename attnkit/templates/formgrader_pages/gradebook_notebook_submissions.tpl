{#- nbgrader's page; its script gets the ids as JavaScript strings, its link the id quoted
    (attnkit.upstream.formgrader) -#}
{%- extends 'nbgrader/gradebook_notebook_submissions.tpl' -%}

{%- block head -%}
<script>
var assignment_id = {{ assignment_id | tojson }};
var notebook_id = {{ notebook_id | tojson }};
</script>

<script src="{{ base_url }}/formgrader/static/js/gradebook_notebook_submissions.js"></script>
{%- endblock head -%}

{%- block breadcrumbs -%}
<ol class="breadcrumb">
  <li><a href="{{ base_url }}/formgrader/gradebook">Manual Grading</a></li>
  <li><a href="{{ base_url }}/formgrader/gradebook/{{ assignment_id | urlencode }}">{{ assignment_id }}</a></li>
  <li class="active">{{ notebook_id }}</li>
</ol>
{%- endblock -%}
